// Connectors: third-party MCP servers an org connected (docs/interface.md 2.1). Credentials are
// encrypted per field (AES-256-GCM, the row id and field name as associated data) and emptied on
// disconnect; the row itself stays for the audit trail.
import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

export type ConnectorStatus = "pending" | "connected" | "error";
export type ConnectorAuthMethod = "none" | "bearer" | "oauth2";

export interface DiscoveredTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  destructive: boolean;
  readOnly: boolean;
  idempotent: boolean;
  /** The server's `title` (2025-06-18+) or `annotations.title`, when it gave one. */
  title?: string;
  /** `openWorldHint`; absent or anything but false is true (the MCP default). */
  openWorld?: boolean;
  /** The server's `outputSchema` (2025-06-18+), when it declared an object schema. */
  outputSchema?: Record<string, unknown>;
}

export interface DroppedTool {
  name: string;
  reason: string;
}

export const connectors = pgTable(
  "connectors",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    url: text("url").notNull(),
    authMethod: text("auth_method").$type<ConnectorAuthMethod>().notNull(),
    /** Encrypted credential fields by name (`token`; `access_token`, `refresh_token`, `client_id`, `client_secret`). */
    credentials: jsonb("credentials").$type<Record<string, string>>().notNull().default({}),
    status: text("status").$type<ConnectorStatus>().notNull().default("pending"),
    lastError: text("last_error"),
    lastDiscoveredAt: timestamp("last_discovered_at", { withTimezone: true }),
    discoveredTools: jsonb("discovered_tools").$type<DiscoveredTool[]>().notNull().default([]),
    droppedTools: jsonb("dropped_tools").$type<DroppedTool[]>().notNull().default([]),
    serverInfo: jsonb("server_info").$type<Record<string, unknown>>().notNull().default({}),
    /** A validated raster icon as a data: URL, or null (the dashboard shows its generic mark). */
    iconUrl: text("icon_url"),
    /** When scheduled discovery may next run; claimed atomically so one process runs it. */
    nextDiscoveryAt: timestamp("next_discovery_at", { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("connectors_org_slug_live_idx").on(t.orgId, t.slug).where(sql`${t.deletedAt} is null`),
    index("connectors_next_discovery_idx").on(t.nextDiscoveryAt),
  ],
);
