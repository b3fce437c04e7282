// A TCP proxy in the test process in front of the shared PostgreSQL, so a test can take "the
// database" away and give it back without stopping a server other tests use:
//   cut()     closes every open connection and refuses new ones (a stopped server);
//   hang()    accepts connections and drops every byte both ways (a server that stopped answering);
//   restore() forwards again.
// The URL it gives points at the proxy with the upstream URL's user, password and database.
import type { Socket, TCPSocketListener } from "bun";
import { freePort } from "./process.ts";

type Mode = "open" | "cut" | "hang";

interface Pair {
  client: Socket<Pair>;
  upstream?: Socket<unknown>;
  /** Bytes the client sent before the upstream connection was open. */
  pending: Uint8Array[];
}

export interface PgProxy {
  url: string;
  /** Connections accepted while hanging (each one a client that will wait for an answer that never comes). */
  readonly hungConnections: number;
  cut(): void;
  hang(): void;
  restore(): void;
  close(): void;
}

export async function startPgProxy(upstreamUrl: string): Promise<PgProxy> {
  const upstream = new URL(upstreamUrl);
  const host = upstream.hostname;
  const port = Number(upstream.port || 5432);
  let mode: Mode = "open";
  let hung = 0;
  const pairs = new Set<Pair>();
  let listener: TCPSocketListener<Pair> | undefined;

  const drop = (pair: Pair) => {
    pairs.delete(pair);
    pair.client.end();
    pair.upstream?.end();
  };

  const listen = (at: number) =>
    Bun.listen<Pair>({
      hostname: "127.0.0.1",
      port: at,
      socket: {
        open(client) {
          const pair: Pair = { client, pending: [] };
          client.data = pair;
          pairs.add(pair);
          if (mode === "hang") {
            hung++;
            return;
          }
          void Bun.connect({
            hostname: host,
            port,
            socket: {
              open(up) {
                pair.upstream = up;
                for (const chunk of pair.pending.splice(0)) up.write(chunk);
              },
              data(_up, chunk) {
                if (mode === "open") pair.client.write(chunk);
              },
              close() {
                drop(pair);
              },
              error() {
                drop(pair);
              },
            },
          }).catch(() => drop(pair));
        },
        data(client, chunk) {
          const pair = client.data;
          if (mode !== "open") return;
          if (pair.upstream) pair.upstream.write(chunk);
          else pair.pending.push(new Uint8Array(chunk));
        },
        close(client) {
          drop(client.data);
        },
        error(client) {
          drop(client.data);
        },
      },
    });

  // A port below the ephemeral range: cut() closes the listener and restore() opens it again on
  // the same number, which an outgoing connection of a busy machine could otherwise have taken.
  const proxyPort = freePort();
  listener = listen(proxyPort);
  const url = new URL(upstreamUrl);
  url.hostname = "127.0.0.1";
  url.port = String(proxyPort);

  return {
    url: url.toString(),
    get hungConnections() {
      return hung;
    },
    cut() {
      mode = "cut";
      listener?.stop(true);
      listener = undefined;
      for (const pair of [...pairs]) drop(pair);
    },
    hang() {
      mode = "hang";
      listener ??= listen(proxyPort); // after a cut: new connections are accepted and never answered
    },
    restore() {
      if (mode === "hang") for (const pair of [...pairs]) drop(pair); // a hung connection stays broken
      mode = "open";
      listener ??= listen(proxyPort);
    },
    close() {
      mode = "cut";
      listener?.stop(true);
      for (const pair of [...pairs]) drop(pair);
    },
  };
}
