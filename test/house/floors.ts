// The floors of src/ (docs/architecture.md "Floors"), from the ground up: layers.test.ts enforces them
// and shape.test.ts holds the document to them. A new folder of src/ gets its floor here and there.
/** From the ground up. A name is a folder of src/ or a file of src/ without its extension. */
export const FLOORS: readonly (readonly string[])[] = [
  ["config", "db", "html", "net"], // nothing of the service's own: configuration, storage, markup, the outbound guard
  ["crypto", "i18n", "kit", "log", "mail", "ratelimit"], // small tools every room uses; the catalogue of customer-facing sentences; SMTP transport
  ["errors", "ports"], // the one error type; the port types Deps is made of
  ["http", "invalidation", "metrics"], // the HTTP edge (body, JSON, errors); cross-instance cache drops; Prometheus collectors
  ["deps"], // what every feature function receives
  ["tenancy"], // the orgs, their members and memberships: the store every room above reads
  ["auth", "health", "jobs", "live", "outbox"], // sign-in and roles; probes; the periodic jobs runner; live events (the bus and the SSE writer); the durable outbox and its loop
  ["activity"], // the admin activity log
  ["oauth", "texts", "webhooks"], // the authorization server; an org's wording of the catalogue's sentences; signed outbound events
  ["openapi", "tools"], // the tool runtime (visibility, validation, limits, deadline, audit)
  ["connectors", "customers", "integrations", "knowledge"], // tool sources and records
  ["campaigns", "inbox", "mcp", "sources"], // email series, tickets, the tool server, knowledge sources (docs through knowledge/)
  ["conversations", "mail-in", "reports"], // chat sessions and transcripts; inbound email (SMTP listener, relay, support aliases); reports
  ["agents"], // agents, language models, the chat pipeline
  ["orgs", "translation"], // organisations, members, invitations, the demo; two-way translation in the inbox
  ["cli", "helpcentre", "sdk", "widget"], // the command line, the public help centre, the public /api/sdk, the embeddable widget
  ["setup"], // setup_* tools and the setup checklist, over every feature
  ["compose", "dashboard"], // the composition root; the dashboard pages
  ["app"], // every plugin
  ["server"], // open, listen, stop
  ["main"], // the CLI entry
];
