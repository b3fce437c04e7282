DROP INDEX "eval_runs_org_seq_idx";--> statement-breakpoint
ALTER TABLE "eval_runs" DROP COLUMN "seq";