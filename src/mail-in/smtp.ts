// The inbound SMTP listener (INBOUND_SMTP_PORT; `smtp-server`), for mail to INBOUND_EMAIL_DOMAIN
// (README "Email channel"). Never an open relay (docs/interface.md H): every recipient is resolved at RCPT
// TO and refused with 550 unless it is a live reply address or an org's support alias. The size
// is announced (RFC 1870 SIZE) and enforced: a MAIL FROM declaring more, or DATA carrying more,
// gets 552, and nothing is stored. STARTTLS is offered when a certificate is configured; there is
// no AUTH (this listener only receives). The message is parsed and stored before the 250, so an
// accepted message is never lost; a failure answers 451 and the sending server retries.
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { ingestEmail } from "./ingest.ts";
import { resolveRecipient, type Route } from "./recipients.ts";
import { smtpGuard } from "./smtp-guard.ts";

/** Recipients of one message: more get 452 (RFC 5321 section 4.5.3.1.8 requires accepting 100). */
export const MAX_RECIPIENTS = 100;

export interface InboundSmtp {
  port: number;
  close(): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export function createInboundSmtpServer(deps: Pick<Deps, "config" | "db" | "live" | "log" | "now" | "replies" | "timers">): SMTPServer {
  const { inbound } = deps.config;
  // Session and command time, connections per address, refused recipients: src/mail-in/smtp-guard.ts.
  const guard = smtpGuard(deps, () => server);
  const options: SMTPServerOptions = {
    name: inbound.domain,
    banner: "mail for the support inbox only",
    size: inbound.maxMessageBytes,
    rejectOversized: true,
    maxRecipients: MAX_RECIPIENTS,
    authOptional: true,
    disabledCommands: inbound.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    hideSTARTTLS: !inbound.tls,
    ...(inbound.tls ? { key: inbound.tls.key, cert: inbound.tls.cert } : {}),
    logger: false,
    closeTimeout: 5_000,
    // A silent socket; a client that trickles bytes is cut by the guard's command limit.
    socketTimeout: inbound.smtpLimits.commandSeconds * 1000,
    maxClients: inbound.smtpLimits.maxConnections,
    disableReverseLookup: true,
    onConnect: guard.onConnect,
    onSecure: guard.onSecure,
    onClose: guard.onClose,
    async onRcptTo(address, session, callback) {
      try {
        const route = await resolveRecipient(deps, address.address);
        if (!route) return callback(guard.refusedRecipient(session));
        callback();
      } catch (error) {
        deps.log.warn("inbound recipient check failed", { error: messageOf(error) });
        callback(smtpError(451, "4.3.0 temporary failure, try again later"));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= inbound.maxMessageBytes) chunks.push(chunk);
      });
      stream.on("error", () => callback(smtpError(451, "4.3.0 temporary failure")));
      stream.on("end", async () => {
        // smtp-server answers 552 itself for an oversized message (rejectOversized).
        if ((stream as { sizeExceeded?: boolean }).sizeExceeded) return callback();
        try {
          const routes: Route[] = [];
          for (const rcpt of session.envelope.rcptTo) {
            const route = await resolveRecipient(deps, rcpt.address);
            if (route) routes.push(route);
          }
          const mailFrom = session.envelope.mailFrom;
          await ingestEmail(deps, {
            raw: Buffer.concat(chunks),
            routes,
            envelopeFrom: mailFrom ? mailFrom.address : "",
            client: { ip: session.remoteAddress, helo: session.hostNameAppearsAs },
          });
          callback();
        } catch (error) {
          deps.log.warn("inbound email not stored", { error: messageOf(error) });
          callback(smtpError(451, "4.3.0 temporary failure, try again later"));
        }
      });
    },
  };
  const server = new SMTPServer(options);
  return server;
}

/** Starts the listener on HOST:INBOUND_SMTP_PORT (src/server.ts). */
export async function startInboundSmtp(
  deps: Pick<Deps, "config" | "db" | "live" | "log" | "now" | "replies" | "timers">,
  port = deps.config.inbound.smtpPort!,
  host = deps.config.host,
): Promise<InboundSmtp> {
  const server = createInboundSmtpServer(deps);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error) => deps.log.warn("inbound SMTP error", { error: messageOf(error) }));
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
