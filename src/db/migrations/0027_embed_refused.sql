ALTER TABLE "docs" ADD COLUMN "embed_refused_version" bigint;--> statement-breakpoint
ALTER TABLE "docs" ADD COLUMN "embed_refused_model" text;