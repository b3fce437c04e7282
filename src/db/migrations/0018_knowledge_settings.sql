CREATE TABLE "knowledge_settings" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"synonyms" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"synonyms_updated_at" timestamp with time zone,
	"docs_version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "knowledge_settings" ADD CONSTRAINT "knowledge_settings_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;