// Every source of tools the runtime knows. Adding a built-in family is one line in `families`;
// an org-defined source (custom actions, connectors) is one line in `toolProviders`.
import { connectorTools } from "../connectors/tools.ts";
import { customActionTools } from "../integrations/custom-actions.ts";
import { dataTools } from "../customers/tools.ts";
import { docsTools } from "../knowledge/tools.ts";
import { automationTools } from "../campaigns/tools.ts";
import { inboxTools } from "../inbox/tools.ts";
import { setupTools } from "../setup/tools.ts";
import type { ToolDefinition, ToolProvider } from "./types.ts";

/** Built-in families: the same tools for every org (feature flags and toggles still apply). */
export const families: readonly (readonly ToolDefinition[])[] = [docsTools, dataTools, inboxTools, automationTools, setupTools];

export const toolProviders: readonly ToolProvider[] = [async () => families.flat(), customActionTools, connectorTools];
