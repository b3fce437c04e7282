ALTER TABLE "customer_events" ADD COLUMN "conversation_id" uuid;--> statement-breakpoint
ALTER TABLE "customer_events" ADD CONSTRAINT "customer_events_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Events stored before: a chat session id is a bearer secret, so each is swapped for the conversation
-- it names (sessions are stored as the SHA-256 of the id, hex), then the column of ids is dropped.
-- An id that names no session of the event's org links nothing.
UPDATE "customer_events" SET "conversation_id" = c."id" FROM "conversations" c WHERE "customer_events"."session_id" IS NOT NULL AND c."org_id" = "customer_events"."org_id" AND c."session_hash" = encode(sha256(convert_to("customer_events"."session_id", 'UTF8')), 'hex');--> statement-breakpoint
ALTER TABLE "customer_events" DROP COLUMN "session_id";
