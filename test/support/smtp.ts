// A real SMTP server on loopback (the `smtp-server` package) that records what it accepts, can be
// told to refuse with a given reply code, and a small MIME reader for the tests' assertions.
import { SMTPServer } from "smtp-server";
import { freePort } from "./process.ts";

export interface ReceivedMail {
  /** The mail transaction that carried it (SmtpEvent.transaction). */
  transaction: string;
  from: string;
  to: string[];
  raw: string;
  headers: Map<string, string>;
  /** Decoded parts by content type (text/plain, text/html). */
  parts: Map<string, string>;
  contentType: string;
}

/** What the server saw, in order: a recipient accepted (RCPT TO) and a message accepted (end of DATA), each named by its session and transaction. */
export interface SmtpEvent {
  event: "rcpt" | "accepted";
  to: string;
  /** `<session id>:<transaction number>`: the mail transaction the event belongs to. */
  transaction: string;
}

export interface TestSmtp {
  url: string;
  port: number;
  received: ReceivedMail[];
  events: SmtpEvent[];
  /** Reply to the next `times` RCPT TO for `address` with this code (then accept), e.g. 451 or 550. */
  refuse(address: string, code: number, times?: number): void;
  close(): Promise<void>;
}

export function unfoldHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const i = line.indexOf(":");
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return headers;
}

function decode(body: string, encoding: string | undefined): string {
  if (encoding?.toLowerCase() === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding?.toLowerCase() === "quoted-printable")
    return Buffer.from(
      body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
      "latin1",
    ).toString("utf8");
  return body;
}

export function parseMail(raw: string): Pick<ReceivedMail, "headers" | "parts" | "contentType"> {
  const split = raw.indexOf("\r\n\r\n");
  const headers = unfoldHeaders(raw.slice(0, split));
  const body = raw.slice(split + 4);
  const contentType = headers.get("content-type") ?? "text/plain";
  const parts = new Map<string, string>();
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith("--")) break;
      const at = chunk.indexOf("\r\n\r\n");
      const h = unfoldHeaders(chunk.slice(2, at));
      parts.set(
        (h.get("content-type") ?? "text/plain").split(";")[0]!.trim(),
        decode(chunk.slice(at + 4).replace(/\r\n$/, ""), h.get("content-transfer-encoding")),
      );
    }
  } else parts.set(contentType.split(";")[0]!.trim(), decode(body, headers.get("content-transfer-encoding")));
  return { headers, parts, contentType };
}

/**
 * `delayMs`: how long the server takes to accept each message (to catch a sender mid-batch).
 * `auth`: the only credentials accepted (AUTH PLAIN/LOGIN over the plain connection), then required.
 */
export async function startSmtp(options: { delayMs?: number; auth?: { user: string; pass: string } } = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const events: SmtpEvent[] = [];
  const transactionOf = (session: { id: string; transaction: number }) => `${session.id}:${session.transaction}`;
  const refusals = new Map<string, number[]>();
  const server = new SMTPServer({
    authOptional: options.auth === undefined,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
      callback(Object.assign(new Error("invalid credentials"), { responseCode: 535 }));
    },
    disabledCommands: ["STARTTLS"],
    logger: false,
    closeTimeout: 1000,
    onRcptTo(address, session, callback) {
      const code = refusals.get(address.address)?.shift();
      if (code === undefined) {
        events.push({ event: "rcpt", to: address.address, transaction: transactionOf(session) });
        return callback();
      }
      const error = Object.assign(new Error(code >= 500 ? "mailbox unavailable" : "try again later"), { responseCode: code });
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        setTimeout(() => {
          received.push({
            transaction: transactionOf(session),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            ...parseMail(raw),
          });
          for (const r of session.envelope.rcptTo) events.push({ event: "accepted", to: r.address, transaction: transactionOf(session) });
          callback();
        }, options.delayMs ?? 0);
      });
    },
  });
  // A client's connection reset (a sender killed mid-conversation, which some tests do on purpose)
  // is reported as an 'error' event on the server: expected here, and never an unhandled event.
  server.on("error", () => {});
  const port = freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    events,
    refuse(address, code, times = 1) {
      refusals.set(address, [...(refusals.get(address) ?? []), ...Array.from({ length: times }, () => code)]);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
