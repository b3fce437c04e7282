// Every source of tools the runtime knows. Adding a built-in family is one line in `families`;
// an org-defined source (custom actions, connectors) is one line in `toolProviders`.
import { connectorTools } from "../connectors/tools.ts";
import { customActionTools } from "../integrations/custom-actions.ts";
import { dataTools } from "./families/data.ts";
import { docsTools } from "./families/docs.ts";
import { automationTools } from "./families/automation.ts";
import { inboxTools } from "./families/inbox.ts";
import { setupTools } from "./families/setup.ts";
import type { ToolDefinition, ToolProvider } from "./types.ts";

/** Built-in families: the same tools for every org (feature flags and toggles still apply). */
export const families: readonly (readonly ToolDefinition[])[] = [docsTools, dataTools, inboxTools, automationTools, setupTools];

export const toolProviders: readonly ToolProvider[] = [async () => families.flat(), customActionTools, connectorTools];
