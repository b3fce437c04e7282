CREATE TABLE "connectors" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"url" text NOT NULL,
	"auth_method" text NOT NULL,
	"credentials" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"last_error" text,
	"last_discovered_at" timestamp with time zone,
	"discovered_tools" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"dropped_tools" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"server_info" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"icon_url" text,
	"next_discovery_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "connectors" ADD CONSTRAINT "connectors_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "connectors_org_slug_live_idx" ON "connectors" USING btree ("org_id","slug") WHERE "connectors"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "connectors_next_discovery_idx" ON "connectors" USING btree ("next_discovery_at");