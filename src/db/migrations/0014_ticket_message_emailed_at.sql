ALTER TABLE "ticket_messages" ADD COLUMN "emailed_at" timestamp with time zone;
--> statement-breakpoint
-- Added by hand (a data update drizzle cannot express): replies already emailed keep their place in later threads.
UPDATE "ticket_messages" SET "emailed_at" = COALESCE("outbox"."done_at", "outbox"."updated_at") FROM "outbox" WHERE "outbox"."kind" = 'ticket.reply_email' AND "outbox"."status" = 'sent' AND "outbox"."org_id" = "ticket_messages"."org_id" AND "outbox"."payload"->>'message_id' = "ticket_messages"."id"::text;
