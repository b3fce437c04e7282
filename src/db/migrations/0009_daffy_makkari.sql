DROP INDEX "activity_log_org_created_idx";--> statement-breakpoint
ALTER TABLE "activity_log" ADD COLUMN "seq" bigserial NOT NULL;--> statement-breakpoint
CREATE INDEX "activity_log_org_seq_idx" ON "activity_log" USING btree ("org_id","seq");