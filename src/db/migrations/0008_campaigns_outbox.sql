CREATE TABLE "outbox" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"run_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claim_token" uuid,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"done_at" timestamp with time zone,
	CONSTRAINT "outbox_status_check" CHECK ("outbox"."status" in ('pending', 'sending', 'parked', 'sent', 'held', 'failed', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "campaign_enrolments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"campaign_id" uuid NOT NULL,
	"end_user_id" uuid NOT NULL,
	"state" text DEFAULT 'active' NOT NULL,
	"source" text NOT NULL,
	"enrolled_at" timestamp with time zone NOT NULL,
	"last_step_at" timestamp with time zone,
	"wake_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "campaign_enrolments_state_check" CHECK ("campaign_enrolments"."state" in ('active', 'completed', 'removed', 'unsubscribed'))
);
--> statement-breakpoint
CREATE TABLE "campaign_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"campaign_id" uuid NOT NULL,
	"enrolment_id" uuid NOT NULL,
	"end_user_id" uuid NOT NULL,
	"step_id" text NOT NULL,
	"outbox_id" uuid NOT NULL,
	"to_email" text,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"html" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"steps" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"audience" jsonb,
	"sender" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"audience_swept_at" timestamp with time zone,
	CONSTRAINT "campaigns_status_check" CHECK ("campaigns"."status" in ('draft', 'active', 'paused', 'archived'))
);
--> statement-breakpoint
CREATE TABLE "mail_unsubscribe_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"end_user_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_unsubscribes" (
	"org_id" uuid NOT NULL,
	"end_user_id" uuid NOT NULL,
	"message_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "mail_unsubscribes_org_id_end_user_id_pk" PRIMARY KEY("org_id","end_user_id")
);
--> statement-breakpoint
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_enrolments" ADD CONSTRAINT "campaign_enrolments_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_enrolments" ADD CONSTRAINT "campaign_enrolments_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_enrolments" ADD CONSTRAINT "campaign_enrolments_end_user_id_end_users_id_fk" FOREIGN KEY ("end_user_id") REFERENCES "public"."end_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_messages" ADD CONSTRAINT "campaign_messages_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_messages" ADD CONSTRAINT "campaign_messages_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_messages" ADD CONSTRAINT "campaign_messages_enrolment_id_campaign_enrolments_id_fk" FOREIGN KEY ("enrolment_id") REFERENCES "public"."campaign_enrolments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_messages" ADD CONSTRAINT "campaign_messages_end_user_id_end_users_id_fk" FOREIGN KEY ("end_user_id") REFERENCES "public"."end_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_messages" ADD CONSTRAINT "campaign_messages_outbox_id_outbox_id_fk" FOREIGN KEY ("outbox_id") REFERENCES "public"."outbox"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_unsubscribe_tokens" ADD CONSTRAINT "mail_unsubscribe_tokens_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_unsubscribe_tokens" ADD CONSTRAINT "mail_unsubscribe_tokens_end_user_id_end_users_id_fk" FOREIGN KEY ("end_user_id") REFERENCES "public"."end_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_unsubscribe_tokens" ADD CONSTRAINT "mail_unsubscribe_tokens_message_id_campaign_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."campaign_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_unsubscribes" ADD CONSTRAINT "mail_unsubscribes_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_unsubscribes" ADD CONSTRAINT "mail_unsubscribes_end_user_id_end_users_id_fk" FOREIGN KEY ("end_user_id") REFERENCES "public"."end_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbox_due_idx" ON "outbox" USING btree ("status","run_at");--> statement-breakpoint
CREATE INDEX "outbox_lease_idx" ON "outbox" USING btree ("status","locked_until");--> statement-breakpoint
CREATE INDEX "outbox_org_kind_idx" ON "outbox" USING btree ("org_id","kind","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_enrolments_campaign_user_idx" ON "campaign_enrolments" USING btree ("campaign_id","end_user_id");--> statement-breakpoint
CREATE INDEX "campaign_enrolments_wake_idx" ON "campaign_enrolments" USING btree ("state","wake_at");--> statement-breakpoint
CREATE INDEX "campaign_enrolments_org_user_idx" ON "campaign_enrolments" USING btree ("org_id","end_user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_messages_enrolment_step_idx" ON "campaign_messages" USING btree ("enrolment_id","step_id");--> statement-breakpoint
CREATE INDEX "campaign_messages_org_campaign_idx" ON "campaign_messages" USING btree ("org_id","campaign_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_messages_outbox_idx" ON "campaign_messages" USING btree ("outbox_id");--> statement-breakpoint
CREATE INDEX "campaign_messages_org_user_idx" ON "campaign_messages" USING btree ("org_id","end_user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "campaigns_org_slug_idx" ON "campaigns" USING btree ("org_id","slug");--> statement-breakpoint
CREATE INDEX "campaigns_org_created_idx" ON "campaigns" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "mail_unsubscribe_tokens_message_idx" ON "mail_unsubscribe_tokens" USING btree ("message_id");