ALTER TABLE "action_executions" ADD COLUMN "actor_kind" text;--> statement-breakpoint
ALTER TABLE "action_executions" ADD COLUMN "actor_id" text;