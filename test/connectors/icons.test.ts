// Connector icons (docs/interface.md 8.3): from serverInfo.icons — inline base64 raster data URIs whose
// bytes are what they declare, or same-site icon URLs passing the guard — else the origin's
// favicon, else null (the generic mark); SVG never; re-derived on every discovery.
//
// The connector URL is http://mcp.acme.test:<port>/mcp (the test resolver maps the names to
// loopback, which development mode allows), a proxy in front of statefulSseServer({ icons }) that
// also answers /favicon.ico; an icon host answers for static.acme.test (same site) and
// cdn.other.test (another site).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Icon } from "@modelcontextprotocol/sdk/types.js";
import { deriveIcon, ICON_MAX_BYTES, sameSite } from "../../src/connectors/icons.ts";
import type { GuardOptions } from "../../src/net/guard.ts";
import type { TestApp } from "../support/app.ts";
import { statefulSseServer } from "../support/mcp-servers.ts";
import { connectOk, dataUrl, devApp, fixtures, refreshOk, serverById, SVG, type Switchable, switchable, TINY_GIF, tinyPng } from "./helpers.ts";

let app: TestApp;
let auth: Record<string, string>;
let proxy: Switchable;
let iconHost: ReturnType<typeof Bun.serve>;
const iconRequests: { host: string | null; path: string }[] = [];
const running = fixtures();
const PNG = tinyPng([255, 0, 0, 255]);
const OTHER_PNG = tinyPng([0, 0, 255, 255]);
const FAVICON = tinyPng([0, 255, 0, 255]);
let slugs = 0;

beforeAll(async () => {
  ({ app, auth } = await devApp());
  proxy = await running.start(switchable(await running.start(statefulSseServer())));
  iconHost = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      iconRequests.push({ host: req.headers.get("host"), path });
      if (path === "/icon.png") return new Response(OTHER_PNG, { headers: { "content-type": "image/png" } });
      if (path === "/icon.svg") return new Response(SVG, { headers: { "content-type": "image/svg+xml" } });
      return new Response("not found", { status: 404 });
    },
  });
  for (const host of ["mcp.acme.test", "static.acme.test", "cdn.other.test"]) app.hosts.set(host, ["127.0.0.1"]);
});
afterAll(async () => {
  iconHost.stop(true);
  await running.stopAll();
  await app.close();
});

const connectorUrl = () => `http://mcp.acme.test:${proxy.port}/mcp`;

/** Puts a server announcing `icons` behind the proxy and connects it; returns the stored icon_url. */
async function iconFor(icons: Icon[] | undefined, favicon: Uint8Array<ArrayBuffer> | null = null, faviconType?: string): Promise<string | null> {
  proxy.use(await running.start(statefulSseServer(icons ? { icons } : {})));
  proxy.favicon(favicon, faviconType);
  const created = await connectOk(app, auth, { name: "Icons", slug: `icons_${++slugs}`, url: connectorUrl() });
  expect(created.status).toBe("connected");
  return (await serverById(app, auth, created.id))!.icon_url;
}

describe("icons from serverInfo.icons (docs/interface.md 8.3)", () => {
  test("a data: PNG icon → icon_url is that data:image/png;base64 URL", async () => {
    expect(await iconFor([{ src: dataUrl("image/png", PNG), mimeType: "image/png" }])).toBe(dataUrl("image/png", PNG));
    expect(await iconFor([{ src: dataUrl("image/png", PNG) }])).toBe(dataUrl("image/png", PNG)); // mimeType is optional
  });

  test("a data: GIF whose bytes are GIF is accepted", async () => {
    expect(await iconFor([{ src: dataUrl("image/gif", TINY_GIF) }])).toBe(dataUrl("image/gif", TINY_GIF));
  });

  test("an SVG data icon is rejected, however it is declared", async () => {
    expect(await iconFor([{ src: dataUrl("image/svg+xml", SVG), mimeType: "image/svg+xml" }])).toBeNull();
    expect(await iconFor([{ src: dataUrl("image/png", SVG), mimeType: "image/png" }])).toBeNull();
    expect(await iconFor([{ src: `data:image/svg+xml;utf8,${encodeURIComponent(SVG)}` }])).toBeNull();
  });

  test("the declared type must match the bytes: image/png holding GIF bytes is rejected", async () => {
    expect(await iconFor([{ src: dataUrl("image/png", TINY_GIF), mimeType: "image/png" }])).toBeNull();
    expect(await iconFor([{ src: dataUrl("image/png", TINY_GIF) }])).toBeNull();
    // The icon entry's mimeType must agree as well.
    expect(await iconFor([{ src: dataUrl("image/gif", TINY_GIF), mimeType: "image/png" }])).toBeNull();
  });

  test("an https icon on another site is rejected without being requested", async () => {
    const before = iconRequests.length;
    expect(await iconFor([{ src: `https://cdn.other.test:${iconHost.port}/icon.png`, mimeType: "image/png" }])).toBeNull();
    // Even one that the development guard would let through (plain http to loopback).
    expect(await iconFor([{ src: `http://cdn.other.test:${iconHost.port}/icon.png`, mimeType: "image/png" }])).toBeNull();
    expect(iconRequests.slice(before)).toEqual([]);
  });

  test("a same-site icon URL is fetched, validated and stored as a data: URL", async () => {
    const before = iconRequests.length;
    const icon = await iconFor([{ src: `http://static.acme.test:${iconHost.port}/icon.png`, mimeType: "image/png" }]);
    expect(icon).toBe(dataUrl("image/png", OTHER_PNG));
    expect(iconRequests.slice(before)).toEqual([{ host: `static.acme.test:${iconHost.port}`, path: "/icon.png" }]);
    // A same-site SVG is still refused.
    expect(await iconFor([{ src: `http://static.acme.test:${iconHost.port}/icon.svg` }])).toBeNull();
  });

  test("invalid candidates are skipped until a valid one", async () => {
    const icon = await iconFor([
      { src: dataUrl("image/svg+xml", SVG) },
      { src: dataUrl("image/png", TINY_GIF) },
      { src: `https://cdn.other.test/icon.png` },
      { src: dataUrl("image/png", PNG), mimeType: "image/png" },
    ]);
    expect(icon).toBe(dataUrl("image/png", PNG));
  });
});

describe("fallbacks (docs/interface.md 8.3)", () => {
  test("nothing valid → the server origin's favicon, validated like any icon", async () => {
    const before = proxy.requests.length;
    expect(await iconFor([{ src: dataUrl("image/svg+xml", SVG) }], FAVICON)).toBe(dataUrl("image/png", FAVICON));
    expect(proxy.requests.slice(before).filter((r) => r.path === "/favicon.ico")).toHaveLength(1);
    expect(await iconFor(undefined, FAVICON)).toBe(dataUrl("image/png", FAVICON));
  });

  test("a favicon that is not a raster image → null", async () => {
    expect(await iconFor(undefined, new TextEncoder().encode(SVG), "image/svg+xml")).toBeNull();
    expect(await iconFor(undefined, new TextEncoder().encode("<!doctype html><title>x</title>"), "text/html")).toBeNull();
  });

  test("no icon and no favicon → null", async () => {
    expect(await iconFor(undefined, null)).toBeNull();
  });
});

describe("re-derived on every discovery (docs/interface.md 3, docs/interface.md 8.3)", () => {
  test("the icon follows what the server announces at each PATCH refresh", async () => {
    proxy.use(await running.start(statefulSseServer({ icons: [{ src: dataUrl("image/png", PNG) }] })));
    proxy.favicon(null);
    const created = await connectOk(app, auth, { name: "Changing icon", slug: "changing_icon", url: connectorUrl() });
    expect((await serverById(app, auth, created.id))!.icon_url).toBe(dataUrl("image/png", PNG));

    proxy.use(await running.start(statefulSseServer({ icons: [{ src: dataUrl("image/gif", TINY_GIF) }] })));
    expect((await refreshOk(app, auth, created.id)).icon_url).toBe(dataUrl("image/gif", TINY_GIF));

    proxy.use(await running.start(statefulSseServer({ icons: [{ src: dataUrl("image/svg+xml", SVG) }] })));
    proxy.favicon(FAVICON);
    expect((await refreshOk(app, auth, created.id)).icon_url).toBe(dataUrl("image/png", FAVICON));

    proxy.favicon(null);
    expect((await refreshOk(app, auth, created.id)).icon_url).toBeNull();
    expect((await serverById(app, auth, created.id))!.icon_url).toBeNull();
  });
});

describe("deriveIcon directly, with a server origin on loopback and the development guard", () => {
  const guard: GuardOptions = {
    allowLoopback: true,
    resolver: async (host) => (host.endsWith(".acme.test") || host === "localhost" ? ["127.0.0.1"] : Promise.reject(new Error(`unknown ${host}`))),
  };
  let origin: ReturnType<typeof Bun.serve>;
  let favicon: () => Response = () => new Response("not found", { status: 404 });
  const hits: string[] = [];
  beforeAll(() => {
    origin = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const path = new URL(req.url).pathname;
        hits.push(path);
        if (path === "/favicon.ico") return favicon();
        if (path === "/elsewhere.png") return new Response(FAVICON);
        if (path === "/gif-as-png.png") return new Response(TINY_GIF, { headers: { "content-type": "image/png" } });
        return new Response("not found", { status: 404 });
      },
    });
  });
  afterAll(() => origin.stop(true));
  const serverUrl = () => `http://127.0.0.1:${origin.port}/mcp`;

  test("favicon.ico as PNG bytes → data:image/png", async () => {
    favicon = () => new Response(FAVICON, { headers: { "content-type": "image/vnd.microsoft.icon" } });
    expect(await deriveIcon(serverUrl(), {}, guard)).toBe(dataUrl("image/png", FAVICON));
  });

  test("a favicon over the size cap, a redirect, or a 404 → null; a redirect target is never requested", async () => {
    const big = new Uint8Array(ICON_MAX_BYTES + 1);
    big.set(FAVICON);
    favicon = () => new Response(big);
    expect(await deriveIcon(serverUrl(), {}, guard)).toBeNull();
    favicon = () => new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${origin.port}/elsewhere.png` } });
    hits.length = 0;
    expect(await deriveIcon(serverUrl(), {}, guard)).toBeNull();
    expect(hits).toEqual(["/favicon.ico"]);
    favicon = () => new Response("not found", { status: 404 });
    expect(await deriveIcon(serverUrl(), {}, guard)).toBeNull();
  });

  test("an icon whose declared mimeType disagrees with the fetched bytes is refused", async () => {
    favicon = () => new Response("not found", { status: 404 });
    expect(await deriveIcon(serverUrl(), { icons: [{ src: `http://127.0.0.1:${origin.port}/gif-as-png.png`, mimeType: "image/png" }] }, guard)).toBeNull();
    expect(await deriveIcon(serverUrl(), { icons: [{ src: `/gif-as-png.png` }] }, guard)).toBe(dataUrl("image/gif", TINY_GIF)); // relative, same origin, undeclared
  });

  test("without development mode, an http icon is refused (https only)", async () => {
    const production: GuardOptions = { allowLoopback: false, resolver: guard.resolver };
    expect(await deriveIcon("https://mcp.acme.test/mcp", { icons: [{ src: `http://static.acme.test:${origin.port}/favicon.ico` }] }, production)).toBeNull();
  });
});

describe("same-site (docs/interface.md 8.3: an https icon URL must be same-site with the server host)", () => {
  test("same host and sibling subdomains are same-site; other registrable domains are not", () => {
    expect(sameSite("mcp.example.com", "mcp.example.com")).toBe(true);
    expect(sameSite("cdn.example.com", "mcp.example.com")).toBe(true);
    expect(sameSite("example.com", "mcp.example.com")).toBe(true);
    expect(sameSite("example.org", "mcp.example.com")).toBe(false);
    expect(sameSite("evilexample.com", "mcp.example.com")).toBe(false);
    expect(sameSite("example.com.evil.net", "mcp.example.com")).toBe(false);
  });

  test("IP-literal hosts are only same-site with themselves", () => {
    expect(sameSite("93.184.216.34", "93.184.216.34")).toBe(true);
    expect(sameSite("1.184.216.34", "93.184.216.34")).toBe(false);
    expect(sameSite("8.0.0.1", "127.0.0.1")).toBe(false);
  });

  test("hosts under a public suffix (github.io, co.uk) are different sites", () => {
    expect(sameSite("attacker.github.io", "victim.github.io")).toBe(false);
    expect(sameSite("evil.co.uk", "shop.co.uk")).toBe(false);
  });
});
