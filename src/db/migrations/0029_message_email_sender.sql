ALTER TABLE "ticket_messages" ADD COLUMN "email_from" text;--> statement-breakpoint
ALTER TABLE "ticket_messages" ADD COLUMN "from_customer" boolean;--> statement-breakpoint
-- Messages that arrived by email before these columns: their sender, from the email kept with them.
UPDATE "ticket_messages" SET "email_from" = e."from_address", "from_customer" = e."from_customer" FROM "ticket_inbound_emails" e WHERE e."ticket_message_id" = "ticket_messages"."id";