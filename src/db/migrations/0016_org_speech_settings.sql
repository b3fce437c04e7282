CREATE TABLE "org_speech_settings" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"stt_base_url" text,
	"stt_model" text,
	"stt_api_key" text,
	"tts_base_url" text,
	"tts_model" text,
	"tts_voice" text,
	"tts_api_key" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "org_speech_settings" ADD CONSTRAINT "org_speech_settings_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;