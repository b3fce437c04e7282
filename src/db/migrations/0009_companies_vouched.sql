ALTER TABLE "companies" ADD COLUMN "verified" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Companies stored before: who wrote them was not recorded. Those a verified customer belongs to
-- were named by the org (API, import) or by a verified token, so the org vouches for them; the rest
-- stay open to unverified writes until the org or a verified token writes them.
UPDATE "companies" SET "verified" = true WHERE EXISTS (SELECT 1 FROM "end_users" u WHERE u."company_id" = "companies"."id" AND u."org_id" = "companies"."org_id" AND u."verified");
