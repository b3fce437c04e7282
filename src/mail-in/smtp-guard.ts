// The SMTP listener's defences against clients that hold connections or guess addresses (README
// "Email channel", docs/decisions.md "Inbound mail under attack"). smtp-server's own options cap
// the open connections in all (`maxClients`) and cut a silent socket (`socketTimeout`); this adds:
//   - a whole-session limit (INBOUND_SMTP_SESSION_SECONDS), whatever the client sends;
//   - a per-command limit (INBOUND_SMTP_COMMAND_SECONDS): the next complete line — a command, or a
//     line of DATA — must arrive within it, so a byte every few seconds does not keep a
//     connection (or a DATA) open;
//   - a cap on open connections per client address (INBOUND_SMTP_MAX_CONNECTIONS_PER_ADDRESS);
//   - MAX_RCPT_FAILURES refused recipients per connection, then 421 and the connection closed.
// Each cut is a 421 reply (RFC 5321 section 3.8), then the connection closes. Time is read from
// deps.now and waited for with deps.timers, so tests move a clock instead of waiting.
import type { Socket } from "node:net";
import type { SMTPServer, SMTPServerSession } from "smtp-server";
import type { Deps } from "../deps.ts";

/** Recipients refused with 550 on one connection; the next refusal is 421 and the end of it. */
export const MAX_RCPT_FAILURES = 10;

/** The part of smtp-server's connection object used here: its id (the session's), socket and reply. */
interface Connection {
  id: string;
  _socket?: Socket;
  send(code: number, message: string): void;
}

interface Watch {
  socket: Socket | undefined;
  onData: (chunk: Buffer) => void;
  rcptFailures: number;
  closed: boolean;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export function smtpGuard(deps: Pick<Deps, "config" | "now" | "timers">, server: () => SMTPServer) {
  const limits = deps.config.inbound.smtpLimits;
  const perAddress = new Map<string, number>();
  const watches = new Map<string, Watch & { address: string }>();

  return {
    onConnect(session: SMTPServerSession, callback: (error?: Error) => void): void {
      const address = session.remoteAddress;
      const open = perAddress.get(address) ?? 0;
      if (open >= limits.maxConnectionsPerAddress) return callback(smtpError(421, "4.7.0 too many connections from your address, try again later"));
      const connection = [...(server() as unknown as { connections: Set<Connection> }).connections].find((c) => c.id === session.id);
      if (!connection) return callback(smtpError(421, "4.3.0 temporary failure, try again later"));
      perAddress.set(address, open + 1);
      const started = deps.now().getTime();
      let lastLine = started;
      const watch = {
        address,
        socket: connection._socket,
        rcptFailures: 0,
        closed: false,
        onData: (chunk: Buffer) => {
          if (chunk.includes(0x0a)) lastLine = deps.now().getTime();
        },
      };
      watch.socket?.on("data", watch.onData);
      watches.set(session.id, watch);
      const check = () => {
        if (watch.closed) return;
        const now = deps.now().getTime();
        const sessionLeft = started + limits.sessionSeconds * 1000 - now;
        const lineLeft = lastLine + limits.commandSeconds * 1000 - now;
        if (sessionLeft <= 0) return connection.send(421, "4.4.2 session time limit reached, closing connection");
        if (lineLeft <= 0) return connection.send(421, "4.4.2 command time limit reached, closing connection");
        deps.timers.deadline(Math.min(sessionLeft, lineLeft)).addEventListener("abort", check, { once: true });
      };
      check();
      callback();
    },

    /** After STARTTLS the lines arrive on the secure socket. */
    onSecure(socket: Socket, session: SMTPServerSession, callback: (error?: Error) => void): void {
      const watch = watches.get(session.id);
      if (watch) {
        watch.socket?.off("data", watch.onData);
        watch.socket = socket;
        socket.on("data", watch.onData);
      }
      callback();
    },

    onClose(session: SMTPServerSession): void {
      const watch = watches.get(session.id);
      if (!watch) return;
      watches.delete(session.id);
      watch.closed = true;
      watch.socket?.off("data", watch.onData);
      const open = (perAddress.get(watch.address) ?? 1) - 1;
      if (open > 0) perAddress.set(watch.address, open);
      else perAddress.delete(watch.address);
    },

    /** The reply to a refused recipient: 550, or past MAX_RCPT_FAILURES 421 (which closes the connection). */
    refusedRecipient(session: SMTPServerSession): Error {
      const watch = watches.get(session.id);
      const failures = watch ? ++watch.rcptFailures : 0;
      if (failures > MAX_RCPT_FAILURES) return smtpError(421, "4.7.1 too many unknown recipients, closing connection");
      return smtpError(550, "5.1.1 no such recipient here (this server relays nothing)");
    },
  };
}
