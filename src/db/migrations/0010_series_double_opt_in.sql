CREATE TABLE "campaign_opt_ins" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"campaign_id" uuid NOT NULL,
	"email" text NOT NULL,
	"token_hash" text NOT NULL,
	"token_sealed" text,
	"end_user_id" uuid,
	"requested_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"confirmed_at" timestamp with time zone,
	CONSTRAINT "campaign_opt_ins_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "campaign_opt_ins" ADD CONSTRAINT "campaign_opt_ins_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_opt_ins" ADD CONSTRAINT "campaign_opt_ins_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_opt_ins" ADD CONSTRAINT "campaign_opt_ins_end_user_id_end_users_id_fk" FOREIGN KEY ("end_user_id") REFERENCES "public"."end_users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaign_opt_ins_org_email_idx" ON "campaign_opt_ins" USING btree ("org_id","email");--> statement-breakpoint
CREATE INDEX "campaign_opt_ins_expiry_idx" ON "campaign_opt_ins" USING btree ("expires_at") WHERE "campaign_opt_ins"."confirmed_at" is null;