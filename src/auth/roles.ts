// Dashboard roles. A membership holds a set of them; an org's creator holds them all.
// `*:manage` implies nothing about `*:view` in storage; `hasRole` treats manage as including view.
export const ROLES = [
  "org:manage", //          org settings, feature flags, identity verification and secrets
  "members:manage", //      invite and remove members, change their roles
  "agents:manage", //       agents: instructions, skills, widget look, action toggles
  "agents:view",
  "integrations:manage", // connect, refresh and disconnect connectors and custom actions
  "integrations:view", //   list them
  "knowledge:manage", //    knowledge-base documents
  "knowledge:view",
  "inbox:manage", //        tickets, conversations, customers
  "inbox:view",
  "automation:manage", //   email series: create, edit, activate, pause, archive, enrol customers
  "automation:view", //     see campaigns, their enrolments and messages; preview
] as const;

export type Role = (typeof ROLES)[number];

/** `x:manage` includes `x:view`. */
export function hasRole(roles: readonly string[], needed: Role): boolean {
  if (roles.includes(needed)) return true;
  return needed.endsWith(":view") && roles.includes(needed.replace(/:view$/, ":manage"));
}

/**
 * Starting points for a member's roles on the invitation and member forms (docs/decisions.md
 * "Accounts and business hours"); the twelve roles stay editable one by one.
 */
export const ROLE_PRESETS = {
  admin: { label: "Admin", roles: [...ROLES] },
  agent: { label: "Agent", roles: ["inbox:manage", "knowledge:view", "agents:view", "automation:view"] },
  viewer: { label: "Viewer", roles: ROLES.filter((r) => r.endsWith(":view")) },
} as const satisfies Record<string, { label: string; roles: readonly Role[] }>;

export type RolePreset = keyof typeof ROLE_PRESETS;

/** The roles of the preset a form chose, or the boxes ticked when it chose none ("custom"). */
export function rolesFromForm(preset: string | undefined, ticked: string[]): string[] {
  return preset && Object.hasOwn(ROLE_PRESETS, preset) ? [...ROLE_PRESETS[preset as RolePreset].roles] : ticked;
}

/** Each role as people read it (the overview says a member's roles in these words, not the codes). */
export const ROLE_NAMES: Record<Role, string> = {
  "org:manage": "Manage the organisation",
  "members:manage": "Manage members",
  "agents:manage": "Edit agents",
  "agents:view": "See agents",
  "integrations:manage": "Edit connectors and custom actions",
  "integrations:view": "See connectors and custom actions",
  "knowledge:manage": "Edit the knowledge base",
  "knowledge:view": "Read the knowledge base",
  "inbox:manage": "Answer tickets and edit customers",
  "inbox:view": "Read the inbox",
  "automation:manage": "Run campaigns",
  "automation:view": "See campaigns",
};

/**
 * A membership's roles in words: the preset they match ("Admin (every role)", "Agent (…)"), else
 * each role's name in the order of ROLES; a view role its manage role includes is not said twice,
 * and a stored role this version does not know is shown as it is.
 */
export function describeRoles(roles: readonly string[]): string {
  const held = new Set(roles);
  const known = ROLES.filter((r) => held.has(r) && !(r.endsWith(":view") && held.has(r.replace(/:view$/, ":manage"))));
  const names = [...known.map((r) => ROLE_NAMES[r]), ...roles.filter((r) => !(ROLES as readonly string[]).includes(r))];
  if (names.length === 0) return "none yet";
  const same = (list: readonly string[]) => list.length === held.size && list.every((r) => held.has(r));
  for (const preset of Object.values(ROLE_PRESETS))
    if (same(preset.roles)) return `${preset.label} (${preset.roles.length === ROLES.length ? "every role" : names.join(", ")})`;
  return names.join(", ");
}
