ALTER TABLE "outbox" ADD COLUMN "lane" text;--> statement-breakpoint
CREATE INDEX "outbox_kind_due_idx" ON "outbox" USING btree ("kind","status","run_at");--> statement-breakpoint
-- Rows queued before lanes existed: a webhook row's lane is its delivery's endpoint.
UPDATE "outbox" SET "lane" = d."endpoint_id"::text FROM "webhook_deliveries" d WHERE d."outbox_id" = "outbox"."id" AND "outbox"."kind" = 'webhook' AND "outbox"."lane" IS NULL;