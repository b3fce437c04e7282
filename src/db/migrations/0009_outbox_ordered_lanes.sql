ALTER TABLE "outbox" ADD COLUMN "seq" bigserial NOT NULL;--> statement-breakpoint
CREATE INDEX "outbox_lane_order_idx" ON "outbox" USING btree ("kind","lane","seq");