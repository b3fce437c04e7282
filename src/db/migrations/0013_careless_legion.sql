DROP INDEX "activity_log_org_seq_idx";--> statement-breakpoint
CREATE INDEX "activity_log_org_created_id_idx" ON "activity_log" USING btree ("org_id","created_at","id");--> statement-breakpoint
ALTER TABLE "activity_log" DROP COLUMN "seq";