CREATE TABLE "org_texts" (
	"org_id" uuid NOT NULL,
	"language" text NOT NULL,
	"key" text NOT NULL,
	"message" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "org_texts_org_id_language_key_pk" PRIMARY KEY("org_id","language","key")
);
--> statement-breakpoint
ALTER TABLE "org_texts" ADD CONSTRAINT "org_texts_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;