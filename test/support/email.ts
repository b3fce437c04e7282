// Shared set-up for the email channel tests: a DKIM key pair written to a PEM file (DKIM_PRIVATE_KEY
// accepts a path), the DNS answer mailauth's verifier asks for, and the environment of an app that
// sends through a loopback SMTP server.
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dkimSign } from "mailauth/lib/dkim/sign.js";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";

export const DKIM_DOMAIN = "acme.example";
export const DKIM_SELECTOR = "s2026";
export const MAIL_FROM = "support@acme.example";
export const INBOUND_DOMAIN = "in.acme.example";
export const WEBHOOK_SECRET = "inbound-secret-0123456789abcdef0123456789";

const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
export const dkimKeyPath = join(mkdtempSync(join(tmpdir(), "dkim-")), "private.pem");
writeFileSync(dkimKeyPath, keys.privateKey.export({ type: "pkcs8", format: "pem" }) as string);
const publicKey = (keys.publicKey.export({ type: "spki", format: "der" }) as Buffer).toString("base64");

/** The TXT record an operator publishes at <selector>._domainkey.<domain> (README "Email channel"). */
export const DKIM_TXT = `v=DKIM1; k=rsa; p=${publicKey}`;

export function emailEnv(smtpUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SMTP_URL: smtpUrl,
    MAIL_FROM,
    DKIM_DOMAIN,
    DKIM_SELECTOR,
    DKIM_PRIVATE_KEY: dkimKeyPath,
    INBOUND_EMAIL_DOMAIN: INBOUND_DOMAIN,
    INBOUND_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...extra,
  };
}

/** mailauth's DKIM verdict on a raw message, with DNS answered by our test record only. */
export async function verifyDkim(raw: string): Promise<{ result: string; domain?: string; headers: string[] }[]> {
  const resolver = async (name: string, type: string) => {
    if (type === "TXT" && name === `${DKIM_SELECTOR}._domainkey.${DKIM_DOMAIN}`) return [[DKIM_TXT]];
    throw Object.assign(new Error(`no such record ${name}`), { code: "ENOTFOUND" });
  };
  const verdict = await dkimVerify(Buffer.from(raw), { resolver } as never);
  return verdict.results.map((r) => ({
    result: r.status.result,
    domain: r.signingDomain,
    headers: ((r as { signingHeaders?: { keys?: string } }).signingHeaders?.keys ?? "").split(": "),
  }));
}

/**
 * A sending domain whose mail passes DKIM and DMARC in a test app: a key pair of its own, its
 * public key and a `p=reject` DMARC policy published in the app's mail DNS (TestApp.mailDns).
 * `sign` prepends a DKIM-Signature (mailauth's signer) to a raw message from that domain.
 */
export function sendingDomain(app: { mailDns: Map<string, string[][] | string[]> }, domain: string, selector = "mail") {
  const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const p = (pair.publicKey.export({ type: "spki", format: "der" }) as Buffer).toString("base64");
  app.mailDns.set(`TXT ${selector}._domainkey.${domain}`, [[`v=DKIM1; k=rsa; p=${p}`]]);
  app.mailDns.set(`TXT _dmarc.${domain}`, [["v=DMARC1; p=reject"]]);
  const privateKey = pair.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  return {
    async sign(raw: string): Promise<string> {
      const { signatures } = await dkimSign(Buffer.from(raw), { signatureData: [{ signingDomain: domain, selector, privateKey }] } as never);
      return signatures + raw;
    },
  };
}
