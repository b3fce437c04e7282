// What the soak's servers deliver to: a loopback SMTP server (smtp-server) that records every
// accepted message's Message-ID and can be taken down and brought back on the same port, and
// webhook receivers (Bun.serve) that verify each request with the standardwebhooks library, record
// its webhook-id and the status they answered, and can be told to answer 503 for a while.
import { SMTPServer } from "smtp-server";
import { Webhook } from "standardwebhooks";

export interface MailReceiver {
  url: string;
  /** Message-ID → how many times it was accepted. */
  accepted: Map<string, number>;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startMailReceiver(port: number): Promise<MailReceiver> {
  const accepted = new Map<string, number>();
  const make = () =>
    new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      closeTimeout: 500,
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          const raw = Buffer.concat(chunks).toString("utf8");
          const head = raw.slice(0, raw.indexOf("\r\n\r\n")).replace(/\r\n[ \t]+/g, " ");
          const id = /^message-id:\s*(\S+)/im.exec(head)?.[1] ?? "(none)";
          accepted.set(id, (accepted.get(id) ?? 0) + 1);
          callback();
        });
      },
    });
  let server: SMTPServer | null = null;
  const listen = () => {
    server = make();
    return new Promise<void>((resolve, reject) => {
      server!.once("error", reject);
      server!.listen(port, "127.0.0.1", () => {
        // A sender killed mid-conversation resets its connection: an 'error' event, expected here.
        server!.on("error", () => {});
        resolve();
      });
    });
  };
  const close = () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await listen();
  return {
    url: `smtp://127.0.0.1:${port}`,
    accepted,
    async down() {
      await close();
      server = null;
    },
    up: listen,
    close,
  };
}

export interface HookReceipt {
  id: string;
  status: number;
  verified: boolean;
  at: number;
}

export interface HookReceiver {
  name: string;
  url: string;
  secrets: string[];
  receipts: HookReceipt[];
  /** While true, every request is answered 503 (and recorded). */
  failing: boolean;
  close(): void;
}

export function startHookReceiver(name: string): HookReceiver {
  const receiver: HookReceiver = { name, url: "", secrets: [], receipts: [], failing: false, close: () => server.stop(true) };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      const headers = Object.fromEntries(request.headers);
      const verified = receiver.secrets.some((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      const status = receiver.failing ? 503 : 200;
      receiver.receipts.push({ id: headers["webhook-id"] ?? "(none)", status, verified, at: Date.now() });
      return new Response(status === 200 ? "ok" : "unavailable", { status });
    },
  });
  receiver.url = `http://127.0.0.1:${server.port}/hooks/${name}`;
  return receiver;
}
