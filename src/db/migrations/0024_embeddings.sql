CREATE TABLE "passage_embeddings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"doc_id" uuid NOT NULL,
	"doc_version" bigint NOT NULL,
	"seq" integer NOT NULL,
	"hash" text NOT NULL,
	"model" text NOT NULL,
	"text" text NOT NULL,
	"headings" jsonb NOT NULL,
	"dims" integer NOT NULL,
	"vector" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "knowledge_settings" ADD COLUMN "embeddings_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_settings" ADD COLUMN "embeddings_error" text;--> statement-breakpoint
ALTER TABLE "knowledge_settings" ADD COLUMN "embeddings_error_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "passage_embeddings" ADD CONSTRAINT "passage_embeddings_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "passage_embeddings" ADD CONSTRAINT "passage_embeddings_doc_id_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "passage_embeddings_passage_idx" ON "passage_embeddings" USING btree ("doc_id","doc_version","model","seq");--> statement-breakpoint
CREATE INDEX "passage_embeddings_org_idx" ON "passage_embeddings" USING btree ("org_id","model","seq");--> statement-breakpoint
CREATE INDEX "passage_embeddings_hash_idx" ON "passage_embeddings" USING btree ("org_id","hash");