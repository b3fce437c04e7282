CREATE TABLE "customer_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"end_user_id" uuid,
	"anonymous_id" text,
	"session_id" text,
	"name" text NOT NULL,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "widget_settings" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"allowed_origins" text[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "end_users" ADD COLUMN "verified" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "end_users" ADD COLUMN "claimed_external_id" text;--> statement-breakpoint
ALTER TABLE "customer_events" ADD CONSTRAINT "customer_events_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_events" ADD CONSTRAINT "customer_events_end_user_id_end_users_id_fk" FOREIGN KEY ("end_user_id") REFERENCES "public"."end_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widget_settings" ADD CONSTRAINT "widget_settings_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "customer_events_org_user_idx" ON "customer_events" USING btree ("org_id","end_user_id","occurred_at");--> statement-breakpoint
CREATE INDEX "customer_events_org_name_idx" ON "customer_events" USING btree ("org_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "end_users_org_claimed_idx" ON "end_users" USING btree ("org_id","claimed_external_id") WHERE "end_users"."claimed_external_id" is not null;