DROP INDEX "conversation_messages_conversation_idx";--> statement-breakpoint
ALTER TABLE "conversation_messages" ALTER COLUMN "id" DROP DEFAULT;--> statement-breakpoint
CREATE INDEX "conversation_messages_conversation_idx" ON "conversation_messages" USING btree ("conversation_id","created_at","id");--> statement-breakpoint
ALTER TABLE "conversation_messages" DROP COLUMN "seq";