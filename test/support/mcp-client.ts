// The official MCP SDK client, with an OAuthClientProvider whose "browser" is a function the test
// supplies (Browserless, or headless Chromium).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

export class TestOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  savedTokens?: OAuthTokens;
  verifier?: string;
  /** Every authorization URL the SDK asked the "browser" to open. */
  readonly authorizationUrls: URL[] = [];

  constructor(
    readonly redirectUrl: string,
    private readonly open: (url: URL) => Promise<void> = async () => {},
    private readonly metadata: Partial<OAuthClientMetadata> = {},
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK test client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...this.metadata,
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.savedTokens = tokens;
  }
  async redirectToAuthorization(url: URL) {
    // A client configured with scopes asks for them, whatever scope the 401 hinted at (the SDK
    // puts the hint first): what a client that knows which tools it needs does.
    if (this.metadata.scope) url.searchParams.set("scope", this.metadata.scope);
    this.authorizationUrls.push(url);
    await this.open(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error("no code verifier saved");
    return this.verifier;
  }
}

/**
 * Connects the SDK client to `<base>/api/mcp` starting from nothing: the first connect fails with
 * 401, the SDK discovers, registers and sends the user to authorize; `authorize` plays the user
 * and returns the code from the redirect; then the client connects for real.
 */
export async function connectWithOAuth(
  base: string,
  provider: TestOAuthProvider,
  authorize: (url: URL) => Promise<string>,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const endpoint = new URL("/api/mcp", base);
  const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  const probe = new Client({ name: "svc-agents-tests", version: "1.0.0" });
  try {
    await probe.connect(first);
    return { client: probe, transport: first }; // already authorized
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const url = provider.authorizationUrls.at(-1);
  if (!url) throw new Error("the SDK did not ask to open an authorization URL");
  const code = await authorize(url);
  await first.finishAuth(code);
  const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  const client = new Client({ name: "svc-agents-tests", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}
