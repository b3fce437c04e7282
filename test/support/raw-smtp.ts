// A bare SMTP client over a TCP socket, for what nodemailer would never send: commands out of
// order, bare LF line ends, 8-bit headers, a thousand recipients, DATA past the size limit.
import { connect, type Socket } from "node:net";

export interface RawSmtp {
  /** Sends one command (CRLF added unless `raw`) and resolves with the complete reply. */
  send(line: string, raw?: boolean): Promise<string>;
  /** Sends bytes without waiting for any reply. */
  write(data: string | Buffer): Promise<void>;
  /** The next complete reply. */
  reply(): Promise<string>;
  close(): void;
  /** Resolves when the server (or we) closed the connection. */
  closed: Promise<void>;
  /** Whether the connection is closed by now. */
  isClosed(): boolean;
}

/** `localAddress` connects from another loopback address (127.0.0.2, …) as another client would. */
export async function rawSmtp(port: number, localAddress?: string): Promise<RawSmtp & { greeting: string }> {
  const socket: Socket = connect({ port, host: "127.0.0.1", ...(localAddress ? { localAddress } : {}) });
  let ended = false;
  const closed = new Promise<void>((resolve) => socket.once("close", () => ((ended = true), resolve())));
  socket.on("error", () => {}); // a reset after the server's 421 is expected
  let buffer = "";
  const waiting: ((reply: string) => void)[] = [];
  const replies: string[] = [];
  const drain = () => {
    for (;;) {
      // A reply ends with a line "NNN text" (a space, not a hyphen, after the code).
      const match = /(^|\r\n)(\d{3}) [^\r\n]*\r\n/.exec(buffer);
      if (!match) return;
      const end = match.index + match[0].length;
      const reply = buffer.slice(0, end).replace(/^\r\n/, "");
      buffer = buffer.slice(end);
      const next = waiting.shift();
      if (next) next(reply);
      else replies.push(reply);
    }
  };
  socket.on("data", (chunk) => {
    buffer += chunk.toString("latin1");
    drain();
  });
  const reply = () => new Promise<string>((resolve) => (replies.length ? resolve(replies.shift()!) : waiting.push(resolve)));
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const write = (data: string | Buffer) => new Promise<void>((resolve) => (socket.write(data) ? resolve() : socket.once("drain", () => resolve())));
  const greeting = await reply();
  return {
    greeting,
    async send(line, raw = false) {
      await write(raw ? line : `${line}\r\n`);
      return reply();
    },
    write,
    reply,
    close: () => socket.destroy(),
    closed,
    isClosed: () => ended,
  };
}
