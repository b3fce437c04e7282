// The outbound guard (src/net/guard.ts, src/net/addresses.ts; docs/interface.md 8.2, docs/interface.md C), attacked.
//
// Nothing here leaves the machine. Every name goes through an injected resolver, and
// `globalThis.fetch` is wrapped for the whole file: the wrapper logs every dial the guard makes
// and passes on only dials to loopback (where the canaries listen). Any other dial is refused by
// the harness (or, in the few tests that say "stubbed dial", answered by a stub in-process), so a
// guard failure shows up as a logged dial, never as real traffic.
//
// Two canaries listen on 127.0.0.1:
//   {H}: a Bun.serve HTTP server that logs every request (method, path, Host);
//   {T}: a raw TCP listener that counts connections, for https:// attempts (a TLS ClientHello
//        never turns into an HTTP request, so only a connection count can see it).
// Every loopback attempt in the corpus targets one of them, so a guard failure is a hit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blockedAddressReason } from "../../src/net/addresses.ts";
import { BlockedUrlError, checkUrl, guardedFetch, readCapped, RedirectRefusedError, type Resolver, ResponseTooLargeError } from "../../src/net/guard.ts";
import { jsonFromChildBun } from "../support/process.ts";
import { certificateIn } from "../support/tls.ts";
import { rejectionOf } from "../support/settle.ts";

const GUARD_MODULE = join(import.meta.dir, "../../src/net/guard.ts");

// ---------------------------------------------------------------------------------------------
// Canaries and the dial log
// ---------------------------------------------------------------------------------------------

interface Hit {
  method: string;
  path: string;
  host: string | null;
}
const httpHits: Hit[] = [];
let tcpConnections = 0;

interface Dial {
  url: string;
  init: RequestInit & { tls?: { serverName?: string }; proxy?: unknown; redirect?: RequestRedirect };
}
const dials: Dial[] = [];
const realFetch = globalThis.fetch;
const refuseDial = async (dial: Dial): Promise<Response> => {
  throw new Error(`test harness: refused a non-loopback dial to ${dial.url}`);
};
/** What the wrapper does with a dial that is not to loopback: refuse it, unless a test stubs an answer. */
let offLoopback: (dial: Dial) => Promise<Response> = refuseDial;

/** Runs `body` with non-loopback dials answered by `stub` (never by the network). */
async function withStubbedDial<R>(stub: (dial: Dial) => Response, body: () => Promise<R>): Promise<R> {
  offLoopback = async (dial) => stub(dial);
  try {
    return await body();
  } finally {
    offLoopback = refuseDial;
  }
}
// 127/8, 0.0.0.0, ::1, :: and IPv4-mapped loopback all end up on this machine: let them through to
// the canaries, so that a guard failure is also observed there.
const LOCAL_DIAL = /^(127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1?\]|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\])$/i;

function interceptor(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = input instanceof Request ? input.url : String(input);
  const dial: Dial = { url, init: (init ?? {}) as Dial["init"] };
  dials.push(dial);
  if (LOCAL_DIAL.test(new URL(url).hostname)) return realFetch(input, init);
  return offLoopback(dial);
}

let httpCanary: ReturnType<typeof Bun.serve>;
let tcpCanary: Bun.TCPSocketListener<undefined>;
let H = 0;
let T = 0;

function chunkedBody(total: number, chunk: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async pull(controller) {
      if (total <= 0) return controller.close();
      const size = Math.min(chunk, total);
      total -= size;
      controller.enqueue(new Uint8Array(size).fill(0x61));
      await Bun.sleep(1);
    },
  });
}

beforeAll(() => {
  httpCanary = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      httpHits.push({ method: req.method, path: url.pathname + url.search, host: req.headers.get("host") });
      if (url.pathname === "/redirect")
        return new Response("moved", { status: Number(url.searchParams.get("status")), headers: { location: url.searchParams.get("to")! } });
      if (url.pathname === "/bytes") {
        const n = Number(url.searchParams.get("n"));
        // With a fixed body Bun sends Content-Length; a stream goes out chunked, without one.
        if (url.searchParams.get("length") === "declared") return new Response(new Uint8Array(n).fill(0x61));
        return new Response(chunkedBody(n, Number(url.searchParams.get("chunk") ?? 100)));
      }
      return new Response(`canary ${url.pathname}`);
    },
  });
  tcpCanary = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open() {
        tcpConnections++;
      },
      data(socket) {
        socket.end();
      },
    },
  });
  H = httpCanary.port!;
  T = tcpCanary.port;
  globalThis.fetch = interceptor as unknown as typeof fetch;
});

afterAll(() => {
  globalThis.fetch = realFetch;
  httpCanary.stop(true);
  tcpCanary.stop(true);
});

/** Starts watching; the returned function says what happened since. */
function watch() {
  const start = { http: httpHits.length, tcp: tcpConnections, dials: dials.length };
  return () => ({ http: httpHits.slice(start.http), tcp: tcpConnections - start.tcp, dials: dials.slice(start.dials).map((d) => d.url) });
}

const ports = (s: string) => s.replaceAll("{H}", String(H)).replaceAll("{T}", String(T));

/** A resolver answering from a table (names lower-cased, trailing dots ignored); unknown names fail. Logs every call. */
function tableResolver(table: Record<string, string[]> = {}) {
  const calls: string[] = [];
  const resolver: Resolver = async (hostname) => {
    calls.push(hostname);
    const answer = table[hostname.toLowerCase().replace(/\.+$/, "")];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer;
  };
  return { resolver, calls };
}

const outcomeText = (outcome: unknown) =>
  outcome instanceof Response
    ? `a response ${outcome.status} (the guard let it through)`
    : outcome instanceof Error
      ? `${outcome.name}: ${outcome.message}`
      : String(outcome);

async function attempt(url: string, allowLoopback: boolean, resolver: Resolver): Promise<unknown> {
  return guardedFetch(url, {}, { allowLoopback, resolver }).then(
    async (response) => {
      await response.body?.cancel();
      return response;
    },
    (error: unknown) => error,
  );
}

// ---------------------------------------------------------------------------------------------
// 1. The corpus: every attempt must be refused with BlockedUrlError, with no dial at all
// ---------------------------------------------------------------------------------------------

type Mode = "production" | "development";
interface Attempt {
  mode: Mode;
  /** {H} = HTTP canary port, {T} = TCP canary port. */
  url: string;
  what: string;
  /** The injected resolver's table. Unknown names do not resolve. */
  dns?: Record<string, string[]>;
  /** An internal-only name: docs/interface.md C says it is refused before DNS, so the resolver must not be asked. */
  beforeDns?: boolean;
}

const prod = (url: string, what: string, extra: Partial<Attempt> = {}): Attempt => ({ mode: "production", url, what, ...extra });
const dev = (url: string, what: string, extra: Partial<Attempt> = {}): Attempt => ({ mode: "development", url, what, ...extra });
// Internal names resolve to loopback (the canary) or, to isolate the name rule, to a public
// address as split-horizon DNS might; the harness refuses that dial if the guard makes it.
const toLoopback = (name: string) => ({ dns: { [name]: ["127.0.0.1"] }, beforeDns: true });
const toPublic = (name: string) => ({ dns: { [name]: ["1.1.1.1"] }, beforeDns: true });

const CORPUS: Attempt[] = [
  // IPv4 loopback, every spelling the WHATWG parser accepts (https, so the scheme rule is not what stops them)
  prod("https://127.0.0.1:{T}/", "loopback, dotted"),
  prod("http://127.0.0.1:{H}/", "loopback over http outside development"),
  prod("https://2130706433:{T}/", "loopback, one decimal number"),
  prod("https://0x7f000001:{T}/", "loopback, one hex number"),
  prod("https://017700000001:{T}/", "loopback, one octal number"),
  prod("https://127.1:{T}/", "loopback, short form"),
  prod("https://0x7f.0.0.1:{T}/", "loopback, hex first octet"),
  prod("https://0177.0.0.01:{T}/", "loopback, octal octets"),
  prod("https://127.0.0.1.:{T}/", "loopback with a trailing dot"),
  prod("https://127.42.0.1:{T}/", "elsewhere in 127/8"),
  prod("https:127.0.0.1:{T}/", "special scheme without slashes"),
  prod("HTTPS://127.0.0.1:{T}/", "upper-case scheme"),
  prod("https://0:{T}/", "0 = 0.0.0.0"),
  prod("https://0.0.0.0:{T}/", "0.0.0.0"),
  dev("http://0:{H}/", "0.0.0.0 is not loopback, even in development"),
  dev("http://0.0.0.0:{H}/", "0.0.0.0 in development"),
  // Cloud metadata 169.254.169.254 in every spelling, in both modes
  prod("https://169.254.169.254/latest/meta-data/", "metadata, dotted"),
  prod("https://2851995905/", "metadata, one decimal number"),
  prod("https://0xa9fea9fe/", "metadata, one hex number"),
  prod("https://025177524776/", "metadata, one octal number"),
  prod("https://169.254.43518/", "metadata, short form"),
  prod("https://0xa9.0xfe.0xa9.0xfe/", "metadata, hex octets"),
  dev("http://169.254.169.254/latest/meta-data/", "metadata in development"),
  dev("https://2851995905/", "metadata (decimal) in development"),
  // Private, shared, special IPv4 ranges
  prod("https://10.0.0.1/", "10/8"),
  prod("https://10.255.255.255/", "10/8, last address"),
  prod("https://172.16.0.1/", "172.16/12, first block"),
  prod("https://172.31.255.254/", "172.16/12, last block"),
  prod("https://192.168.1.1/", "192.168/16"),
  prod("https://100.64.0.1/", "100.64/10 (CGNAT)"),
  prod("https://100.127.255.254/", "100.64/10, last block"),
  prod("https://255.255.255.255/", "broadcast"),
  prod("https://168.63.129.16/", "Azure wire server"),
  prod("https://224.0.0.1/", "IPv4 multicast"),
  prod("https://240.0.0.1/", "240/4 reserved"),
  prod("https://198.18.0.1/", "198.18/15 benchmarking"),
  prod("https://192.0.0.170/", "192.0.0/24 protocol assignments"),
  dev("http://10.0.0.1/", "10/8 in development"),
  dev("https://192.168.1.1/", "192.168/16 in development"),
  // IPv6
  prod("https://[::1]:{T}/", "IPv6 loopback"),
  prod("https://[0:0:0:0:0:0:0:1]:{T}/", "IPv6 loopback, long form"),
  prod("https://[::]:{T}/", "IPv6 unspecified"),
  prod("https://[::ffff:127.0.0.1]:{T}/", "IPv4-mapped loopback"),
  prod("https://[0:0:0:0:0:ffff:7f00:1]:{T}/", "IPv4-mapped loopback, hex"),
  prod("https://[::ffff:a9fe:a9fe]/", "IPv4-mapped metadata"),
  prod("https://[::127.0.0.1]:{T}/", "IPv4-compatible loopback"),
  prod("https://[64:ff9b::a9fe:a9fe]/", "NAT64 metadata"),
  prod("https://[64:ff9b:1::a9fe:a9fe]/", "local-use NAT64 metadata"),
  prod("https://[2002:7f00:1::]:{T}/", "6to4 of 127.0.0.1"),
  prod("https://[2002:a9fe:a9fe::]/", "6to4 of 169.254.169.254"),
  prod("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo"),
  prod("https://[fe80::1]/", "IPv6 link-local"),
  prod("https://[fc00::1]/", "unique local fc00::/7"),
  prod("https://[fd00:ec2::254]/", "AWS IPv6 metadata"),
  prod("https://[fec0::1]/", "site-local"),
  prod("https://[ff02::1]/", "IPv6 multicast"),
  prod("https://[100::1]/", "discard-only 100::/64"),
  prod("https://[2001:db8::1]/", "documentation 2001:db8::/32"),
  dev("http://[::ffff:127.0.0.1]:{H}/", "IPv4-mapped loopback is not loopback, even in development"),
  dev("http://[::]:{H}/", ":: in development"),
  dev("http://[fd00:ec2::254]/", "AWS IPv6 metadata in development"),
  // Userinfo, backslashes, control characters
  prod("https://evil.example@127.0.0.1:{T}/", "userinfo in front of loopback"),
  prod("https://127.0.0.1:{T}#@evil.example/", "fragment after loopback dressed as userinfo"),
  prod("https://user:pass@example.com/", "credentials in the URL", { dns: { "example.com": ["1.1.1.1"] } }),
  prod("https://example.com\\@127.0.0.1:{T}/", "backslash before @", { dns: { "example.com": ["1.1.1.1"] } }),
  prod("https:\\\\127.0.0.1:{T}/", "backslashes as slashes"),
  prod("https://example.com\t@127.0.0.1:{T}/", "tab inside the authority", { dns: { "example.com": ["1.1.1.1"] } }),
  dev("http://evil.example@127.0.0.1:{H}/", "userinfo is refused in development too"),
  // Unicode and percent-encoding that normalise to internal hosts
  prod("https://１２７.０.０.１:{T}/", "fullwidth digits"),
  prod("https://127。0。0。1:{T}/", "ideographic full stops"),
  prod("https://%31%32%37.0.0.1:{T}/", "percent-encoded digits"),
  prod("https://LOCALHOST:{T}/", "LOCALHOST", toLoopback("localhost")),
  prod("https://localhost.:{T}/", "localhost with a trailing dot", toLoopback("localhost")),
  prod("https://localhost%2e:{T}/", "localhost with a percent-encoded trailing dot", toLoopback("localhost")),
  prod("https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ:{T}/", "circled letters IDNA-map to localhost", toLoopback("localhost")),
  // Internal-only names
  prod("https://localhost:{T}/", "localhost outside development", toLoopback("localhost")),
  prod("https://foo.localhost:{T}/", "*.localhost", toLoopback("foo.localhost")),
  prod("https://printer.local/", "*.local", toPublic("printer.local")),
  prod("https://db.internal/", "*.internal", toPublic("db.internal")),
  prod("https://metadata.google.internal/computeMetadata/v1/", "GCP metadata name", toPublic("metadata.google.internal")),
  prod("https://metadata.goog/", "metadata.goog", toPublic("metadata.goog")),
  prod("https://metadata/", "bare metadata", toPublic("metadata")),
  prod("https://kubernetes.default.svc/", "*.svc", toPublic("kubernetes.default.svc")),
  prod("https://x.cluster.local/", "*.cluster.local", toPublic("x.cluster.local")),
  prod("https://METADATA.GOOGLE.INTERNAL./", "upper case and trailing dot", toPublic("metadata.google.internal")),
  dev("https://metadata.google.internal/", "internal names stay refused in development", toPublic("metadata.google.internal")),
  dev("http://printer.local:{H}/", "*.local in development", toLoopback("printer.local")),
  // Two trailing dots: the WHATWG parser keeps `localhost..`; normaliseUrl strips one dot and the
  // name rule then sees `db.internal.`, which no pattern matches, so the name goes to DNS.
  // These fail against the guard as written (guard.ts line 53, `replace(/\.$/, "")`).
  prod("https://localhost..:{T}/", "localhost with two trailing dots", toLoopback("localhost")),
  prod("https://db.internal../", "*.internal with two trailing dots", toPublic("db.internal")),
  prod("https://kubernetes.default.svc../", "*.svc with two trailing dots", toPublic("kubernetes.default.svc")),
  // Other schemes
  prod("file:///etc/passwd", "file:"),
  prod("gopher://127.0.0.1:{H}/_GET%20/%20HTTP/1.0%0D%0A", "gopher:"),
  prod("ftp://127.0.0.1:{H}/", "ftp:"),
  prod("ws://127.0.0.1:{H}/", "ws:"),
  prod("wss://example.com/", "wss:", { dns: { "example.com": ["1.1.1.1"] } }),
  prod("dict://127.0.0.1:{H}/info", "dict:"),
  prod("data:text/plain,hello", "data:"),
  prod("javascript:fetch('http://127.0.0.1/')", "javascript:"),
  dev("file:///etc/passwd", "file: in development"),
  dev("gopher://127.0.0.1:{H}/_GET", "gopher: in development"),
  dev("ws://127.0.0.1:{H}/", "ws: in development"),
  // Plain http to a public name
  prod("http://example.com/", "http to a public name in production", { dns: { "example.com": ["1.1.1.1"] } }),
  dev("http://example.com/", "http to a public name in development (http is for loopback only)", { dns: { "example.com": ["1.1.1.1"] } }),
  // Names whose answers are blocked
  prod("https://db.example.com/", "a name resolving to 10/8", { dns: { "db.example.com": ["10.1.2.3"] } }),
  prod("https://meta.example.com/latest/meta-data/", "a name resolving to the metadata address", { dns: { "meta.example.com": ["169.254.169.254"] } }),
  prod("https://loop.example.com:{T}/", "a name resolving to 127.0.0.1", { dns: { "loop.example.com": ["127.0.0.1"] } }),
  prod("https://127.0.0.1.nip.io:{T}/", "a wildcard-DNS name for 127.0.0.1", { dns: { "127.0.0.1.nip.io": ["127.0.0.1"] } }),
  prod("https://loop6.example.com:{T}/", "a name resolving to ::1", { dns: { "loop6.example.com": ["::1"] } }),
  prod("https://aws6.example.com/", "a name resolving to fd00:ec2::254", { dns: { "aws6.example.com": ["fd00:ec2::254"] } }),
  prod("https://mapped.example.com/", "a name resolving to ::ffff:169.254.169.254", { dns: { "mapped.example.com": ["::ffff:169.254.169.254"] } }),
  prod("https://zoned.example.com/", "a name resolving to fe80::1%eth0", { dns: { "zoned.example.com": ["fe80::1%eth0"] } }),
  prod("https://mixed.example.com:{T}/", "one public and one loopback answer", { dns: { "mixed.example.com": ["1.1.1.1", "127.0.0.1"] } }),
  prod("https://mixed6.example.com/", "one public A, one private AAAA", { dns: { "mixed6.example.com": ["1.1.1.1", "fc00::5"] } }),
  prod("https://mixed-first.example.com/", "private answer first, public second", { dns: { "mixed-first.example.com": ["10.0.0.1", "1.1.1.1"] } }),
  prod("https://empty.example.com/", "a name resolving to nothing", { dns: { "empty.example.com": [] } }),
  prod("https://nxdomain.example.com/", "a name that does not resolve"),
  prod("https://garbage.example.com/", "a resolver answer that is no address", { dns: { "garbage.example.com": ["not-an-ip"] } }),
  dev("http://mixed.example.com:{H}/", "loopback plus private in development", { dns: { "mixed.example.com": ["127.0.0.1", "10.0.0.1"] } }),
  dev("http://mapped.example.com:{H}/", "a name resolving to ::ffff:127.0.0.1 in development", { dns: { "mapped.example.com": ["::ffff:127.0.0.1"] } }),
  dev("https://meta.example.com/", "a name resolving to the metadata address in development", { dns: { "meta.example.com": ["169.254.169.254"] } }),
];

describe("SSRF corpus: refused with BlockedUrlError, nothing dialled", () => {
  for (const a of CORPUS) {
    test(`${a.mode}: ${a.url}  (${a.what})`, async () => {
      const url = ports(a.url);
      const { resolver, calls } = tableResolver(a.dns);
      const seen = watch();
      const outcome = await attempt(url, a.mode === "development", resolver);
      const after = seen();
      expect(outcomeText(outcome)).toStartWith("BlockedUrlError:");
      expect(outcome).toBeInstanceOf(BlockedUrlError);
      expect(after.dials).toEqual([]);
      expect(after.http).toEqual([]);
      expect(after.tcp).toBe(0);
      if (a.beforeDns) expect(calls).toEqual([]);
    });
  }
});

// Redirect attempts: the first request reaches the canary (development mode, loopback), the 3xx
// is refused naming its Location, and the Location is never requested.
const REDIRECTS: { status: number; to: string }[] = [
  { status: 302, to: "http://169.254.169.254/latest/meta-data/" },
  { status: 301, to: "http://127.0.0.1:{H}/after-redirect" },
  { status: 302, to: "http://127.0.0.1:{H}/after-redirect" },
  { status: 303, to: "http://127.0.0.1:{H}/after-redirect" },
  { status: 307, to: "http://127.0.0.1:{H}/after-redirect" },
  { status: 308, to: "http://127.0.0.1:{H}/after-redirect" },
  { status: 302, to: "/after-redirect" },
  { status: 302, to: "https://127.0.0.1:{T}/" },
];

describe("SSRF corpus: redirects are refused, never followed", () => {
  for (const r of REDIRECTS) {
    test(`development: ${r.status} to ${r.to}`, async () => {
      const to = ports(r.to);
      const path = `/redirect?status=${r.status}&to=${encodeURIComponent(to)}`;
      const seen = watch();
      const outcome = await attempt(`http://127.0.0.1:${H}${path}`, true, tableResolver().resolver);
      const after = seen();
      expect(outcomeText(outcome)).toStartWith("RedirectRefusedError:");
      expect(outcome).toBeInstanceOf(RedirectRefusedError);
      const error = outcome as RedirectRefusedError;
      expect(error.status).toBe(r.status);
      expect(error.location).toBe(to);
      expect(error.message).toContain(to);
      expect(after.dials).toEqual([`http://127.0.0.1:${H}${path}`]);
      expect(after.http).toEqual([{ method: "GET", path, host: `127.0.0.1:${H}` }]);
      expect(after.tcp).toBe(0);
    });
  }

  test("production: a 302 from a checked public address is refused too (stubbed dial, no network)", async () => {
    const { resolver } = tableResolver({ "api.example.com": ["1.1.1.1"] });
    const seen = watch();
    const outcome = await withStubbedDial(
      () => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } }),
      () => attempt("https://api.example.com/hook", false, resolver),
    );
    expect(outcome).toBeInstanceOf(RedirectRefusedError);
    expect((outcome as RedirectRefusedError).location).toBe("http://169.254.169.254/latest/meta-data/");
    expect(seen().dials).toEqual(["https://1.1.1.1/hook"]);
  });
});

// ---------------------------------------------------------------------------------------------
// 2. Loopback: refused outside development, reachable in development with the original Host
// ---------------------------------------------------------------------------------------------

describe("loopback", () => {
  test("outside development http://127.0.0.1:<canary>/ and https://localhost:<canary>/ are refused, canaries untouched", async () => {
    for (const url of [`http://127.0.0.1:${H}/`, `https://localhost:${T}/`, `https://127.0.0.1:${T}/`]) {
      const seen = watch();
      const { resolver } = tableResolver({ localhost: ["127.0.0.1"] });
      expect(await attempt(url, false, resolver)).toBeInstanceOf(BlockedUrlError);
      expect(seen()).toEqual({ http: [], tcp: 0, dials: [] });
    }
  });

  test("in development http://127.0.0.1:<canary>/ reaches the canary", async () => {
    const seen = watch();
    const response = await guardedFetch(`http://127.0.0.1:${H}/dev-literal`, {}, { allowLoopback: true, resolver: tableResolver().resolver });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("canary /dev-literal");
    expect(seen().http).toEqual([{ method: "GET", path: "/dev-literal", host: `127.0.0.1:${H}` }]);
  });

  test("in development a name the resolver maps to 127.0.0.1 reaches the canary with Host = name:port", async () => {
    for (const name of ["devbox.example", "localhost"]) {
      const { resolver, calls } = tableResolver({ [name]: ["127.0.0.1"] });
      const seen = watch();
      const response = await guardedFetch(`http://${name}:${H}/dev-name`, {}, { allowLoopback: true, resolver });
      expect(await response.text()).toBe("canary /dev-name");
      const after = seen();
      expect(after.http).toEqual([{ method: "GET", path: "/dev-name", host: `${name}:${H}` }]);
      expect(after.dials).toEqual([`http://127.0.0.1:${H}/dev-name`]);
      expect(calls).toEqual([name]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// DNS rebinding: one resolution per request, and the dial goes to the checked address
// ---------------------------------------------------------------------------------------------

/** Answers `first` to the first question and `later` to every other. */
function rebindingResolver(first: string[], later: string[]) {
  const calls: string[] = [];
  const resolver: Resolver = async (hostname) => {
    calls.push(hostname);
    return calls.length === 1 ? first : later;
  };
  return { resolver, calls };
}

describe("DNS rebinding", () => {
  test("development: first answer 127.0.0.1, later 10.0.0.1 — one resolution, one request to the canary with the original Host", async () => {
    const { resolver, calls } = rebindingResolver(["127.0.0.1"], ["10.0.0.1"]);
    const seen = watch();
    const response = await guardedFetch(`http://rebind.example:${H}/rebind?x=1`, {}, { allowLoopback: true, resolver });
    expect(response.status).toBe(200);
    await response.text();
    const after = seen();
    expect(calls).toEqual(["rebind.example"]);
    expect(after.dials).toEqual([`http://127.0.0.1:${H}/rebind?x=1`]);
    expect(after.http).toEqual([{ method: "GET", path: "/rebind?x=1", host: `rebind.example:${H}` }]);
    expect(after.tcp).toBe(0);
  });

  test("production: checkUrl resolves once and returns the address it checked", async () => {
    const { resolver, calls } = rebindingResolver(["1.1.1.1"], ["127.0.0.1"]);
    const checked = await checkUrl("https://rebind.example/", { allowLoopback: false, resolver });
    expect(checked.address).toBe("1.1.1.1");
    expect(checked.url.hostname).toBe("rebind.example");
    expect(calls).toEqual(["rebind.example"]);
  });

  test("production: guardedFetch dials the checked address with Host and TLS serverName on the name, no proxy, manual redirects (stubbed dial)", async () => {
    const { resolver, calls } = rebindingResolver(["1.1.1.1"], ["127.0.0.1"]);
    const seen = watch();
    let captured: Dial | undefined;
    const response = await withStubbedDial(
      (dial) => {
        captured = dial;
        return new Response("stub");
      },
      () => guardedFetch("https://rebind.example/path?q=1", { headers: { accept: "application/json" } }, { allowLoopback: false, resolver }),
    );
    expect(await response.text()).toBe("stub");
    expect(calls).toEqual(["rebind.example"]);
    expect(seen().dials).toEqual(["https://1.1.1.1/path?q=1"]);
    const init = captured!.init;
    expect((init.headers as Record<string, string>).host).toBe("rebind.example");
    expect((init.headers as Record<string, string>).accept).toBe("application/json");
    expect(init.tls?.serverName).toBe("rebind.example");
    expect(init.proxy).toBe(false);
    expect(init.redirect).toBe("manual");
  });

  test("production: an IPv6 answer is dialled in brackets, the name kept for Host and TLS (stubbed dial)", async () => {
    const { resolver } = tableResolver({ "v6.example.com": ["2606:4700:4700::1111"] });
    const seen = watch();
    let captured: Dial | undefined;
    const response = await withStubbedDial(
      (dial) => {
        captured = dial;
        return new Response("stub");
      },
      () => guardedFetch("https://v6.example.com:8443/x", {}, { allowLoopback: false, resolver }),
    );
    expect(await response.text()).toBe("stub");
    expect(seen().dials).toEqual(["https://[2606:4700:4700::1111]:8443/x"]);
    expect((captured!.init.headers as Record<string, string>).host).toBe("v6.example.com:8443");
    expect(captured!.init.tls?.serverName).toBe("v6.example.com");
  });
});

// ---------------------------------------------------------------------------------------------
// 3. blockedAddressReason at range boundaries
// ---------------------------------------------------------------------------------------------

const BOUNDARIES: [address: string, blocked: boolean][] = [
  ["0.0.0.0", true],
  ["0.255.255.255", true],
  ["1.0.0.0", false],
  ["9.255.255.255", false],
  ["10.0.0.0", true],
  ["10.255.255.255", true],
  ["11.0.0.0", false],
  ["100.63.255.255", false],
  ["100.64.0.0", true],
  ["100.127.255.255", true],
  ["100.128.0.0", false],
  ["126.255.255.255", false],
  ["127.0.0.0", true],
  ["127.255.255.255", true],
  ["128.0.0.0", false],
  ["168.63.129.15", false],
  ["168.63.129.16", true],
  ["168.63.129.17", false],
  ["169.253.255.255", false],
  ["169.254.0.0", true],
  ["169.254.255.255", true],
  ["169.255.0.0", false],
  ["172.15.255.255", false],
  ["172.16.0.0", true],
  ["172.31.255.255", true],
  ["172.32.0.0", false],
  ["191.255.255.255", false],
  ["192.0.0.0", true],
  ["192.0.0.255", true],
  ["192.0.1.0", false],
  ["192.0.2.0", true],
  ["192.0.2.255", true],
  ["192.0.3.0", false],
  ["192.88.98.255", false],
  ["192.88.99.0", true],
  ["192.88.99.255", true],
  ["192.88.100.0", false],
  ["192.167.255.255", false],
  ["192.168.0.0", true],
  ["192.168.255.255", true],
  ["192.169.0.0", false],
  ["198.17.255.255", false],
  ["198.18.0.0", true],
  ["198.19.255.255", true],
  ["198.20.0.0", false],
  ["198.51.99.255", false],
  ["198.51.100.0", true],
  ["198.51.101.0", false],
  ["203.0.112.255", false],
  ["203.0.113.0", true],
  ["203.0.114.0", false],
  ["223.255.255.255", false],
  ["224.0.0.0", true],
  ["239.255.255.255", true],
  ["240.0.0.0", true],
  ["255.255.255.254", true],
  ["255.255.255.255", true],
  // IPv6
  ["::", true],
  ["::1", true],
  ["::ffff:1.1.1.1", true],
  ["::ffff:8.8.8.8", true],
  ["::8.8.8.8", true],
  ["ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true],
  ["101::", false],
  // NAT64 (64:ff9b::/96, 64:ff9b:1::/48) lies inside ::/8 (its first byte is 0x00), so its
  // neighbours are blocked too: the whole of 0000::–00ff:ffff:… is refused.
  ["64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", true],
  ["64:ff9b::", true],
  ["64:ff9b::ffff:ffff", true],
  ["64:ff9b:0:0:0:1::", true],
  ["64:ff9b:1::", true],
  ["64:ff9b:1:ffff:ffff:ffff:ffff:ffff", true],
  ["64:ff9b:2::", true],
  ["100::", true],
  ["100::ffff:ffff:ffff:ffff", true],
  ["100:0:0:1::", false],
  ["2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false],
  ["2001::", true],
  ["2001:0:ffff:ffff:ffff:ffff:ffff:ffff", true],
  ["2001:1::", false],
  ["2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false],
  ["2001:db8::", true],
  ["2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true],
  ["2001:db9::", false],
  ["2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false],
  ["2002::", true],
  ["2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true],
  ["2003::", false],
  ["3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false],
  ["3fff::", true],
  ["3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", true],
  ["3fff:1000::", false],
  ["fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false],
  ["fc00::", true],
  ["fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true],
  ["fe00::", false],
  ["fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false],
  ["fe80::", true],
  ["febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true],
  ["fec0::", true],
  ["feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true],
  ["ff00::", true],
  ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true],
  ["FE80::1", true],
  ["fe80::1%eth0", true],
  ["::FFFF:A9FE:A9FE", true],
  // Public
  ["1.1.1.1", false],
  ["8.8.8.8", false],
  ["2606:4700:4700::1111", false],
  ["2001:4860:4860::8888", false],
];

describe("blockedAddressReason at range boundaries (allowLoopback false)", () => {
  test.each(BOUNDARIES)("%s blocked: %p", (address, blocked) => {
    const reason = blockedAddressReason(address, { allowLoopback: false });
    if (blocked) expect(reason).toBeString();
    else expect(reason).toBeNull();
  });

  test("anything that is not an IP address is blocked", () => {
    for (const text of ["", "localhost", "1.2.3", "127.0.0.1 ", "127.0.0.1%lo", "[::1]", "2130706433"])
      expect(blockedAddressReason(text, { allowLoopback: false })).toContain("is not an IP address");
  });

  test("allowLoopback lets exactly 127/8 and ::1 through", () => {
    for (const ip of ["127.0.0.1", "127.0.0.0", "127.255.255.255", "::1", "0:0:0:0:0:0:0:1"])
      expect(blockedAddressReason(ip, { allowLoopback: true })).toBeNull();
    for (const ip of [
      "0.0.0.0",
      "::",
      "::2",
      "::ffff:127.0.0.1",
      "::127.0.0.1",
      "64:ff9b::7f00:1",
      "2002:7f00:1::",
      "10.0.0.1",
      "169.254.169.254",
      "fe80::1",
      "fd00:ec2::254",
    ])
      expect(blockedAddressReason(ip, { allowLoopback: true })).toBeString();
    // The neighbours of 127/8 are public, not loopback.
    for (const ip of ["126.255.255.255", "128.0.0.0"]) expect(blockedAddressReason(ip, { allowLoopback: true })).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// 4. readCapped
// ---------------------------------------------------------------------------------------------

describe("readCapped", () => {
  const LIMIT = 1000;
  const dev = { allowLoopback: true, resolver: tableResolver().resolver };
  const get = (query: string) => guardedFetch(`http://127.0.0.1:${H}/bytes?${query}`, {}, dev);

  test("with Content-Length: exactly at the limit passes", async () => {
    const response = await get(`n=${LIMIT}&length=declared`);
    expect(response.headers.get("content-length")).toBe(String(LIMIT));
    const body = await readCapped(response, LIMIT);
    expect(body.byteLength).toBe(LIMIT);
    expect(body.every((b) => b === 0x61)).toBe(true);
  });

  test("with Content-Length: one byte over throws ResponseTooLargeError", async () => {
    const response = await get(`n=${LIMIT + 1}&length=declared`);
    expect(response.headers.get("content-length")).toBe(String(LIMIT + 1));
    expect(await rejectionOf(readCapped(response, LIMIT))).toBeInstanceOf(ResponseTooLargeError);
  });

  test("streamed in chunks without Content-Length: exactly at the limit passes", async () => {
    const response = await get(`n=${LIMIT}&chunk=100`);
    expect(response.headers.get("content-length")).toBeNull();
    expect(response.headers.get("transfer-encoding")).toBe("chunked");
    expect((await readCapped(response, LIMIT)).byteLength).toBe(LIMIT);
  });

  test("streamed in chunks without Content-Length: one byte over throws ResponseTooLargeError", async () => {
    const response = await get(`n=${LIMIT + 1}&chunk=100`);
    expect(response.headers.get("content-length")).toBeNull();
    expect(await rejectionOf(readCapped(response, LIMIT))).toBeInstanceOf(ResponseTooLargeError);
  });

  test("streamed in chunks that straddle the limit: one byte over in the middle of a chunk throws", async () => {
    const response = await get(`n=${LIMIT + 1}&chunk=333`);
    expect(await rejectionOf(readCapped(response, LIMIT))).toBeInstanceOf(ResponseTooLargeError);
  });

  test("a Content-Length that understates the body does not raise the cap (local Response, no network)", async () => {
    const response = new Response(chunkedBody(LIMIT + 1, 100), { headers: { "content-length": "10" } });
    expect(await rejectionOf(readCapped(response, LIMIT))).toBeInstanceOf(ResponseTooLargeError);
  });
});

// ---------------------------------------------------------------------------------------------
// 5. TLS: the dial goes to the address, the certificate is checked against the hostname
// ---------------------------------------------------------------------------------------------

describe("TLS keeps the hostname for certificate checks", () => {
  let dir: string;
  let caPath: string;
  let localhostServer: ReturnType<typeof Bun.serve>;
  let otherServer: ReturnType<typeof Bun.serve>;
  let tlsHits = 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "svc-guard-tls-"));
    // SAN DNS:localhost only, no IP:127.0.0.1: a check against the dialled address would fail.
    const localhost = certificateIn(dir, "localhost");
    const other = certificateIn(dir, "other.example");
    caPath = join(dir, "ca.pem");
    writeFileSync(caPath, localhost.cert + other.cert);
    const handler = (req: Request) => {
      tlsHits++;
      return new Response(`tls ok host=${req.headers.get("host")}`);
    };
    localhostServer = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: localhost.cert, key: localhost.key }, fetch: handler });
    otherServer = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: other.cert, key: other.key }, fetch: handler });
  });

  afterAll(() => {
    localhostServer.stop(true);
    otherServer.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  test("in this process the self-signed certificate is untrusted: the request fails with a certificate error (verification stays on)", async () => {
    const { resolver } = tableResolver({ localhost: ["127.0.0.1"] });
    const seen = watch();
    const outcome = await attempt(`https://localhost:${localhostServer.port}/`, true, resolver);
    expect(outcome).toBeInstanceOf(Error);
    expect(outcome).not.toBeInstanceOf(BlockedUrlError);
    expect((outcome as { code?: string }).code).toBe("DEPTH_ZERO_SELF_SIGNED_CERT");
    expect(seen().dials).toEqual([`https://127.0.0.1:${localhostServer.port}/`]);
    expect(tlsHits).toBe(0);
  });

  test("outside development https://localhost:<tls port>/ is refused before any dial", async () => {
    const { resolver } = tableResolver({ localhost: ["127.0.0.1"] });
    const seen = watch();
    expect(await attempt(`https://localhost:${localhostServer.port}/`, false, resolver)).toBeInstanceOf(BlockedUrlError);
    expect(seen().dials).toEqual([]);
    expect(tlsHits).toBe(0);
  });

  // guardedFetch takes no TLS options (GuardedInit has method, headers, body, signal), so a custom CA
  // cannot be handed to it in-process. NODE_EXTRA_CA_CERTS is read at start-up, so a child Bun that
  // starts with it trusts our certificates and runs the unchanged guard.
  test("a child Bun trusting the certificates: localhost passes while dialling 127.0.0.1; a wrong name or the bare address fails", async () => {
    const p = localhostServer.port;
    const q = otherServer.port;
    const source = `
      import { guardedFetch } from ${JSON.stringify(GUARD_MODULE)};
      const options = { allowLoopback: true, resolver: async () => ["127.0.0.1"] };
      const results = [];
      for (const url of ${JSON.stringify([`https://localhost:${p}/`, `https://localhost:${q}/`, `https://127.0.0.1:${p}/`])}) {
        try {
          const response = await guardedFetch(url, {}, options);
          results.push({ url, status: response.status, body: await response.text() });
        } catch (error) {
          results.push({ url, error: error.name, code: error.code ?? null });
        }
      }
      console.log(JSON.stringify(results));
    `;
    const results = await jsonFromChildBun(source, { NODE_EXTRA_CA_CERTS: caPath });
    expect(results).toEqual([
      // The certificate names only DNS:localhost; the connection goes to 127.0.0.1: verified against serverName.
      { url: `https://localhost:${p}/`, status: 200, body: `tls ok host=localhost:${p}` },
      // A trusted certificate for another name is refused: the name check is on.
      { url: `https://localhost:${q}/`, error: "TypeError", code: "ERR_TLS_CERT_ALTNAME_INVALID" },
      // The literal address is checked as the address, which the certificate does not name.
      { url: `https://127.0.0.1:${p}/`, error: "TypeError", code: "ERR_TLS_CERT_ALTNAME_INVALID" },
    ]);
    expect(tlsHits).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
// No proxy: proxy environment variables do not divert guarded requests
// ---------------------------------------------------------------------------------------------

describe("proxy environment is ignored", () => {
  test("a child Bun with HTTP_PROXY set: plain fetch goes through the proxy, guardedFetch does not", async () => {
    const requestLines: string[] = [];
    const proxy = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket, data) {
          requestLines.push(data.toString().split("\r\n")[0]!);
          socket.write("HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nproxy");
          socket.end();
        },
      },
    });
    try {
      const proxyUrl = `http://127.0.0.1:${proxy.port}`;
      const source = `
        import { guardedFetch } from ${JSON.stringify(GUARD_MODULE)};
        const plain = await (await fetch("http://127.0.0.1:${H}/control")).text();
        const guarded = await (await guardedFetch("http://127.0.0.1:${H}/via-guard", {}, { allowLoopback: true, resolver: async () => [] })).text();
        console.log(JSON.stringify({ plain, guarded }));
      `;
      const seen = watch();
      const result = await jsonFromChildBun(source, {
        HTTP_PROXY: proxyUrl,
        http_proxy: proxyUrl,
        HTTPS_PROXY: proxyUrl,
        https_proxy: proxyUrl,
        NO_PROXY: "",
        no_proxy: "",
      });
      // The control shows the proxy variables are live in the child.
      expect(result).toEqual({ plain: "proxy", guarded: "canary /via-guard" });
      expect(requestLines).toEqual([`GET http://127.0.0.1:${H}/control HTTP/1.1`]);
      expect(seen().http).toEqual([{ method: "GET", path: "/via-guard", host: `127.0.0.1:${H}` }]);
    } finally {
      proxy.stop(true);
    }
  });
});
