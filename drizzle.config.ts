import { defineConfig } from "drizzle-kit";

// `npm run db:generate` writes a new migration from src/db/schema into src/db/migrations,
// then refreshes src/db/migrations/index.ts, which embeds them (see scripts/embed-migrations.ts).
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema/index.ts",
  out: "./src/db/migrations",
});
