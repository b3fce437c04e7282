// OAuth errors know their wire form: RFC 6749 section 5.2 JSON `{error, error_description}`, with
// `Cache-Control: no-store` on every one (docs/interface.md A.11), and `WWW-Authenticate: Basic` when Basic
// client authentication failed (docs/interface.md 5.2 invalid_client).
import { AppError } from "../errors.ts";

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_target"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "unsupported_response_type"
  | "access_denied"
  | "temporarily_unavailable";

export class OAuthError extends AppError {
  constructor(
    readonly oauthCode: OAuthErrorCode,
    description: string,
    status = oauthCode === "invalid_client" ? 401 : 400,
    headers: Record<string, string> = {},
  ) {
    super(status, oauthCode, description, undefined, headers);
  }

  override toResponse(): Response {
    return Response.json(
      { error: this.oauthCode, error_description: this.message },
      { status: this.status, headers: { "cache-control": "no-store", pragma: "no-cache", ...this.headers } },
    );
  }
}
