CREATE TABLE "knowledge_source_pages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source_id" uuid NOT NULL,
	"url" text NOT NULL,
	"doc_id" uuid,
	"etag" text,
	"last_modified" text,
	"content_hash" text,
	"misses" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_sources" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"credentials" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"interval_seconds" integer DEFAULT 86400 NOT NULL,
	"status" text DEFAULT 'idle' NOT NULL,
	"last_error" text,
	"counts" jsonb,
	"progress" jsonb,
	"last_sync_at" timestamp with time zone,
	"next_sync_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "docs" ADD COLUMN "source_id" uuid;--> statement-breakpoint
ALTER TABLE "docs" ADD COLUMN "source_hash" text;--> statement-breakpoint
ALTER TABLE "knowledge_source_pages" ADD CONSTRAINT "knowledge_source_pages_source_id_knowledge_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."knowledge_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_sources" ADD CONSTRAINT "knowledge_sources_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "knowledge_source_pages_url_idx" ON "knowledge_source_pages" USING btree ("source_id","url");--> statement-breakpoint
CREATE INDEX "knowledge_source_pages_doc_idx" ON "knowledge_source_pages" USING btree ("doc_id") WHERE "knowledge_source_pages"."doc_id" is not null;--> statement-breakpoint
CREATE INDEX "knowledge_sources_org_idx" ON "knowledge_sources" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "knowledge_sources_next_sync_idx" ON "knowledge_sources" USING btree ("next_sync_at");--> statement-breakpoint
ALTER TABLE "docs" ADD CONSTRAINT "docs_source_id_knowledge_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."knowledge_sources"("id") ON DELETE cascade ON UPDATE no action;