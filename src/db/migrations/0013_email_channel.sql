CREATE TABLE "member_mail_notifications" (
	"org_id" uuid NOT NULL,
	"member_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "member_mail_notifications_org_id_member_id_pk" PRIMARY KEY("org_id","member_id"),
	CONSTRAINT "member_mail_notifications_mode_check" CHECK ("member_mail_notifications"."mode" in ('full', 'notify_only', 'off'))
);
--> statement-breakpoint
CREATE TABLE "org_mail_settings" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"support_alias" text,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_inbound_emails" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"ticket_id" uuid,
	"ticket_message_id" uuid,
	"message_id" text NOT NULL,
	"from_address" text NOT NULL,
	"subject" text NOT NULL,
	"original" text NOT NULL,
	"attachments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_member_notices" (
	"org_id" uuid NOT NULL,
	"ticket_id" uuid NOT NULL,
	"member_id" uuid NOT NULL,
	"last_queued_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ticket_member_notices_ticket_id_member_id_pk" PRIMARY KEY("ticket_id","member_id")
);
--> statement-breakpoint
CREATE TABLE "ticket_reply_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"ticket_id" uuid NOT NULL,
	"end_user_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "member_mail_notifications" ADD CONSTRAINT "member_mail_notifications_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_mail_notifications" ADD CONSTRAINT "member_mail_notifications_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_mail_settings" ADD CONSTRAINT "org_mail_settings_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_inbound_emails" ADD CONSTRAINT "ticket_inbound_emails_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_inbound_emails" ADD CONSTRAINT "ticket_inbound_emails_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_inbound_emails" ADD CONSTRAINT "ticket_inbound_emails_ticket_message_id_ticket_messages_id_fk" FOREIGN KEY ("ticket_message_id") REFERENCES "public"."ticket_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_member_notices" ADD CONSTRAINT "ticket_member_notices_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_member_notices" ADD CONSTRAINT "ticket_member_notices_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_member_notices" ADD CONSTRAINT "ticket_member_notices_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_reply_tokens" ADD CONSTRAINT "ticket_reply_tokens_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_reply_tokens" ADD CONSTRAINT "ticket_reply_tokens_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_reply_tokens" ADD CONSTRAINT "ticket_reply_tokens_end_user_id_end_users_id_fk" FOREIGN KEY ("end_user_id") REFERENCES "public"."end_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "org_mail_settings_alias_idx" ON "org_mail_settings" USING btree ("support_alias");--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_inbound_emails_message_idx" ON "ticket_inbound_emails" USING btree ("org_id","message_id");--> statement-breakpoint
CREATE INDEX "ticket_inbound_emails_ticket_message_idx" ON "ticket_inbound_emails" USING btree ("ticket_message_id");--> statement-breakpoint
CREATE INDEX "ticket_reply_tokens_ticket_idx" ON "ticket_reply_tokens" USING btree ("ticket_id");