// The mail part of the configuration (src/config.ts calls it): SMTP out, the sender address,
// DKIM signing, and the inbound channel (the SMTP listener and the relay endpoint). Every variable
// is documented in the README ("Configuration", "Email channel").
import { readFileSync } from "node:fs";
import { ConfigError, type Env, integer } from "./read.ts";

/** DKIM_DOMAIN, DKIM_SELECTOR, DKIM_PRIVATE_KEY: outgoing mail is signed (RFC 6376) when all three are set. */
export interface DkimConfig {
  domain: string;
  selector: string;
  privateKey: string;
}

export interface InboundConfig {
  /** INBOUND_EMAIL_DOMAIN: the domain whose mail comes to us (its MX points here); required by the two below. */
  domain?: string;
  /** INBOUND_SMTP_PORT: the SMTP listener's port (on HOST). Unset: no listener. */
  smtpPort?: number;
  /** INBOUND_SMTP_TLS_CERT / INBOUND_SMTP_TLS_KEY (PEM or path): STARTTLS is offered. */
  tls?: { cert: string; key: string };
  /** INBOUND_MAX_MESSAGE_BYTES: the largest message accepted (SMTP SIZE, RFC 1870, and the relay endpoint). Default 10 MiB. */
  maxMessageBytes: number;
  /** INBOUND_WEBHOOK_SECRET: enables POST /api/inbound/email for `Authorization: Bearer <secret>`. */
  webhookSecret?: string;
  /** The SMTP listener's limits (README "Email channel", docs/decisions.md "Inbound mail under attack"). */
  smtpLimits: SmtpLimits;
}

export interface SmtpLimits {
  /** INBOUND_SMTP_SESSION_SECONDS: a connection's whole life, whatever it sends. Default 600. */
  sessionSeconds: number;
  /** INBOUND_SMTP_COMMAND_SECONDS: time for the next complete line (a command, or a line of DATA). Default 30. */
  commandSeconds: number;
  /** INBOUND_SMTP_MAX_CONNECTIONS: open connections in all. Default 100. */
  maxConnections: number;
  /** INBOUND_SMTP_MAX_CONNECTIONS_PER_ADDRESS: open connections from one client address. Default 10. */
  maxConnectionsPerAddress: number;
}

export function mailConfig(env: Env, baseUrl: string): { smtpUrl?: string; mailFrom: string } {
  let smtpUrl: string | undefined;
  if (env.SMTP_URL) {
    let url: URL | undefined;
    try {
      url = new URL(env.SMTP_URL);
    } catch {}
    if (!url || (url.protocol !== "smtp:" && url.protocol !== "smtps:") || !url.hostname)
      throw new ConfigError("SMTP_URL", "must be an smtp:// or smtps:// URL, e.g. smtps://user:password@smtp.example.com:465 (credentials percent-encoded)");
    smtpUrl = env.SMTP_URL;
  }
  let host = "localhost";
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, "") || host;
  } catch {}
  const mailFrom = env.MAIL_FROM || `no-reply@${host.includes(".") ? host : `${host}.localdomain`}`;
  // A bare address: campaigns supply the display name. No spaces, angle brackets or line breaks (header injection).
  if (!/^[^\s@<>",;]{1,64}@[A-Za-z0-9.-]{1,253}$/.test(mailFrom))
    throw new ConfigError("MAIL_FROM", `must be a bare email address such as news@example.com (got ${JSON.stringify(mailFrom)})`);
  return { smtpUrl, mailFrom };
}

/** A PEM given inline, or the path of a file holding one (read once, here). */
function pem(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  let text = raw;
  if (!raw.includes("-----BEGIN")) {
    try {
      text = readFileSync(raw, "utf8");
    } catch {
      throw new ConfigError(name, `must be a PEM or the path of a readable PEM file (could not read ${JSON.stringify(raw.slice(0, 200))})`);
    }
  }
  if (!/-----BEGIN [A-Z0-9 ]+-----[\s\S]+-----END [A-Z0-9 ]+-----/.test(text))
    throw new ConfigError(name, "must be a PEM (-----BEGIN …-----) or the path of one");
  return text.replace(/\\n/g, "\n");
}

const DOMAIN = /^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$|^localhost$/;

export function emailChannelConfig(env: Env): { dkim?: DkimConfig; inbound: InboundConfig } {
  let dkim: DkimConfig | undefined;
  const privateKey = pem(env, "DKIM_PRIVATE_KEY");
  if (env.DKIM_DOMAIN || env.DKIM_SELECTOR || privateKey) {
    if (!env.DKIM_DOMAIN || !DOMAIN.test(env.DKIM_DOMAIN))
      throw new ConfigError(
        "DKIM_DOMAIN",
        "must be a domain name such as example.com when DKIM is configured (set DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY together)",
      );
    if (!env.DKIM_SELECTOR || !/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62})$/.test(env.DKIM_SELECTOR))
      throw new ConfigError("DKIM_SELECTOR", "must be a selector such as mail2026 when DKIM is configured");
    if (!privateKey) throw new ConfigError("DKIM_PRIVATE_KEY", "is required with DKIM_DOMAIN (a PEM private key, or its path)");
    dkim = { domain: env.DKIM_DOMAIN.toLowerCase(), selector: env.DKIM_SELECTOR, privateKey };
  }
  const domain = env.INBOUND_EMAIL_DOMAIN ? env.INBOUND_EMAIL_DOMAIN.toLowerCase() : undefined;
  if (domain !== undefined && !DOMAIN.test(domain))
    throw new ConfigError("INBOUND_EMAIL_DOMAIN", `must be a domain name such as support.example.com (got ${JSON.stringify(env.INBOUND_EMAIL_DOMAIN)})`);
  const smtpPort = env.INBOUND_SMTP_PORT ? integer(env, "INBOUND_SMTP_PORT", 0, 1, 65535) : undefined;
  if (smtpPort !== undefined && !domain) throw new ConfigError("INBOUND_EMAIL_DOMAIN", "is required when INBOUND_SMTP_PORT is set");
  const cert = pem(env, "INBOUND_SMTP_TLS_CERT");
  const key = pem(env, "INBOUND_SMTP_TLS_KEY");
  if ((cert === undefined) !== (key === undefined))
    throw new ConfigError(
      cert ? "INBOUND_SMTP_TLS_KEY" : "INBOUND_SMTP_TLS_CERT",
      "must be set together with the other of INBOUND_SMTP_TLS_CERT and INBOUND_SMTP_TLS_KEY",
    );
  let webhookSecret: string | undefined;
  if (env.INBOUND_WEBHOOK_SECRET) {
    if (!/^[A-Za-z0-9._~+\/=-]{32,256}$/.test(env.INBOUND_WEBHOOK_SECRET))
      throw new ConfigError("INBOUND_WEBHOOK_SECRET", "must be 32 to 256 characters of A-Z a-z 0-9 . _ ~ + / = - (e.g. the output of `openssl rand -hex 32`)");
    if (!domain) throw new ConfigError("INBOUND_EMAIL_DOMAIN", "is required when INBOUND_WEBHOOK_SECRET is set");
    webhookSecret = env.INBOUND_WEBHOOK_SECRET;
  }
  return {
    dkim,
    inbound: {
      domain,
      smtpPort,
      tls: cert && key ? { cert, key } : undefined,
      maxMessageBytes: integer(env, "INBOUND_MAX_MESSAGE_BYTES", 10 * 1024 * 1024, 1024, 25 * 1024 * 1024),
      webhookSecret,
      smtpLimits: smtpLimits(env),
    },
  };
}

function smtpLimits(env: Env): SmtpLimits {
  const sessionSeconds = integer(env, "INBOUND_SMTP_SESSION_SECONDS", 600, 1, 3600);
  const commandSeconds = integer(env, "INBOUND_SMTP_COMMAND_SECONDS", 30, 1, 600);
  if (commandSeconds > sessionSeconds)
    throw new ConfigError("INBOUND_SMTP_COMMAND_SECONDS", `must not be more than INBOUND_SMTP_SESSION_SECONDS (${sessionSeconds})`);
  const maxConnections = integer(env, "INBOUND_SMTP_MAX_CONNECTIONS", 100, 1, 10_000);
  const maxConnectionsPerAddress = integer(env, "INBOUND_SMTP_MAX_CONNECTIONS_PER_ADDRESS", 10, 1, 10_000);
  return { sessionSeconds, commandSeconds, maxConnections, maxConnectionsPerAddress };
}
