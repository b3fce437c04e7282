ALTER TABLE "orgs" ADD COLUMN "identity_secret_previous_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "seq" bigserial NOT NULL;--> statement-breakpoint
CREATE INDEX "outbox_lane_order_idx" ON "outbox" USING btree ("kind","lane","seq");--> statement-breakpoint
-- A previous identity secret kept from a rotation made before the overlap existed: it verifies for
-- the overlap from now on, then is refused, so an upgrade refuses no one at once.
UPDATE "orgs" SET "identity_secret_previous_until" = now() + interval '24 hours' WHERE "identity_secret_previous" IS NOT NULL;
