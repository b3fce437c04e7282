// A throwaway self-signed certificate for localhost / 127.0.0.1, made by openssl at test start,
// so clients that refuse plain http (oauth4webapi) can talk to the test app over real, verified
// TLS: the client trusts exactly this certificate as its CA.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./process.ts";

export interface SelfSigned {
  /** PEM certificate (also the only CA a client should trust). */
  cert: string;
  /** PEM private key, unencrypted. */
  key: string;
}

/**
 * A one-day RSA-2048 self-signed certificate for `name` written into `dir` as <name>.pem and
 * <name>.key (the SANs given, DNS:<name> by default); returns both PEMs and the certificate's path.
 */
export function certificateIn(dir: string, name: string, subjectAltName = `DNS:${name}`): SelfSigned & { certPath: string } {
  const keyPath = join(dir, `${name}.key`);
  const certPath = join(dir, `${name}.pem`);
  const proc = Bun.spawnSync(
    [
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      `/CN=${name}`,
      "-addext",
      `subjectAltName=${subjectAltName}`,
      "-days",
      "1",
      "-keyout",
      keyPath,
      "-out",
      certPath,
    ],
    { stdout: "pipe", stderr: "pipe", stdin: "ignore" },
  );
  if (proc.exitCode !== 0) throw new Error(`openssl req exited ${proc.exitCode}: ${proc.stderr.toString()}`);
  return { cert: readFileSync(certPath, "utf8"), key: readFileSync(keyPath, "utf8"), certPath };
}

/** A certificate for CN=localhost with SANs DNS:localhost and IP:127.0.0.1; no file is left behind. */
export function selfSignedCertificate(): SelfSigned {
  const dir = tempDir("svc-tls-");
  try {
    const { cert, key } = certificateIn(dir, "localhost", "DNS:localhost,IP:127.0.0.1");
    return { cert, key };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
