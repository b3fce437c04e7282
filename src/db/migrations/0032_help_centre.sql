CREATE TABLE "help_article_stats" (
	"org_id" uuid NOT NULL,
	"doc_id" uuid NOT NULL,
	"views" bigint DEFAULT 0 NOT NULL,
	"helpful" integer DEFAULT 0 NOT NULL,
	"not_helpful" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "help_article_stats_org_id_doc_id_pk" PRIMARY KEY("org_id","doc_id")
);
--> statement-breakpoint
CREATE TABLE "help_centres" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"slug" text NOT NULL,
	"custom_domain" text,
	"domain_token" text NOT NULL,
	"domain_verified_at" timestamp with time zone,
	"collections" text[] DEFAULT '{}'::text[] NOT NULL,
	"footer" text DEFAULT '' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "help_search_misses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"query" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "help_article_stats" ADD CONSTRAINT "help_article_stats_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "help_article_stats" ADD CONSTRAINT "help_article_stats_doc_id_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "help_centres" ADD CONSTRAINT "help_centres_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "help_search_misses" ADD CONSTRAINT "help_search_misses_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "help_centres_slug_idx" ON "help_centres" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "help_centres_domain_idx" ON "help_centres" USING btree ("custom_domain");--> statement-breakpoint
CREATE INDEX "help_search_misses_org_idx" ON "help_search_misses" USING btree ("org_id","created_at");