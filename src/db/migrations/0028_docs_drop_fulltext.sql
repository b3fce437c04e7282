DROP INDEX "docs_search_idx";--> statement-breakpoint
ALTER TABLE "docs" DROP COLUMN "search";