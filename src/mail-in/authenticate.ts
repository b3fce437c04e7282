// Who really sent an inbound email: SPF, DKIM and DMARC checked with mailauth (README "Email
// channel", docs/decisions.md "Inbound mail under attack"), summarised as an RFC 8601
// Authentication-Results value and kept with the message. DMARC's verdict decides whether a
// message to the support alias may join an existing ticket (src/mail-in/ingest.ts).
//
// DNS goes through `deps.mailDns` (tests answer from their own records); by default the system's
// resolver. Every lookup, and the whole check, has a time limit: a DNS that does not answer gives
// `temperror` (not a pass), never a stalled delivery. ARC and BIMI are not evaluated.
import { Resolver } from "node:dns/promises";
import { authenticate, type DNSResolver } from "mailauth";
import type { Deps } from "../deps.ts";

export type MailDns = DNSResolver;

/** The time one DNS lookup may take, and the whole check. */
export const DNS_LOOKUP_MS = 3_000;
export const AUTH_TIME_LIMIT_MS = 8_000;

export interface MailAuthentication {
  /** DMARC's result: pass, fail, none, temperror, permerror… ("temperror" when the time limit passed). */
  dmarc: string;
  /** The RFC 8601 summary, e.g. "spf=none …; dkim=pass header.d=example.org …; dmarc=pass header.from=example.org". */
  summary: string;
}

/** The system's DNS, one try per lookup within DNS_LOOKUP_MS. */
export function systemMailDns(): MailDns {
  const resolver = new Resolver({ timeout: DNS_LOOKUP_MS, tries: 1 });
  return (name, type) => resolver.resolve(name, type) as Promise<string[][] | string[]>;
}

function withTimeLimit<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/** Checks `raw` as received from `envelope` (the relay knows no client address: SPF is then `none`). */
export async function authenticateEmail(
  deps: Pick<Deps, "config"> & { mailDns?: MailDns },
  raw: Buffer,
  envelope: { ip?: string; helo?: string; sender?: string },
): Promise<MailAuthentication> {
  const dns = deps.mailDns ?? systemMailDns();
  const resolver: MailDns = async (name, type) => {
    const answer = await withTimeLimit<string[][] | string[] | null>(dns(name, type), DNS_LOOKUP_MS, () => null);
    if (answer === null) throw Object.assign(new Error("DNS time limit"), { code: "ETIMEOUT" });
    return answer;
  };
  const mta = deps.config.inbound.domain ?? "localhost";
  const timedOut = (): MailAuthentication => ({ dmarc: "temperror", summary: `${mta}; dmarc=temperror (time limit)` });
  const check = (async (): Promise<MailAuthentication> => {
    try {
      const result = await authenticate(raw, { ...envelope, mta, resolver, disableArc: true, disableBimi: true });
      const dmarc = (result.dmarc && typeof result.dmarc === "object" ? result.dmarc.status?.result : undefined) ?? "none";
      const header = /^Authentication-Results:\s*([\s\S]*?)\r?\n(?![ \t])/im.exec(result.headers ?? "")?.[1] ?? "";
      return {
        dmarc,
        summary: header
          .replace(/\r?\n[ \t]+/g, " ")
          .replace(/\s+/g, " ")
          .trim()
          .slice(0, 2_000),
      };
    } catch {
      return { dmarc: "temperror", summary: `${mta}; dmarc=temperror` };
    }
  })();
  return withTimeLimit(check, AUTH_TIME_LIMIT_MS, timedOut);
}
