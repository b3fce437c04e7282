CREATE TABLE "message_translations" (
	"org_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"language" text NOT NULL,
	"kind" text NOT NULL,
	"other_language" text NOT NULL,
	"text" text NOT NULL,
	"provider" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_translations_org_id_message_id_language_pk" PRIMARY KEY("org_id","message_id","language")
);
--> statement-breakpoint
CREATE TABLE "org_translation_settings" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"base_url" text,
	"api_key" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "message_translations" ADD CONSTRAINT "message_translations_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_translation_settings" ADD CONSTRAINT "org_translation_settings_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;