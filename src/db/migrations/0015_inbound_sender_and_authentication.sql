ALTER TABLE "ticket_inbound_emails" ADD COLUMN "from_customer" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "ticket_inbound_emails" ADD COLUMN "auth_results" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "ticket_inbound_emails" ADD COLUMN "dmarc" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "ticket_inbound_emails" ADD COLUMN "claimed_ticket_id" uuid;--> statement-breakpoint
ALTER TABLE "ticket_inbound_emails" ADD CONSTRAINT "ticket_inbound_emails_claimed_ticket_id_tickets_id_fk" FOREIGN KEY ("claimed_ticket_id") REFERENCES "public"."tickets"("id") ON DELETE set null ON UPDATE no action;