CREATE TABLE "knowledge_synonyms" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"groups" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "knowledge_synonyms" ADD CONSTRAINT "knowledge_synonyms_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;