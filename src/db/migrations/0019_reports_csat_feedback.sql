CREATE TABLE "ticket_csat_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"ticket_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "handoff_reason" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "csat_score" integer;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "csat_comment" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "csat_handled_by" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "csat_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "widget_settings" ADD COLUMN "csat_enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "widget_settings" ADD COLUMN "csat_question" text;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD COLUMN "helpful" boolean;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD COLUMN "helpful_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ticket_csat_tokens" ADD CONSTRAINT "ticket_csat_tokens_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_csat_tokens" ADD CONSTRAINT "ticket_csat_tokens_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ticket_csat_tokens_ticket_idx" ON "ticket_csat_tokens" USING btree ("ticket_id");--> statement-breakpoint
CREATE INDEX "tickets_org_created_idx" ON "tickets" USING btree ("org_id","created_at");--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_csat_score_check" CHECK ("tickets"."csat_score" between 1 and 5);