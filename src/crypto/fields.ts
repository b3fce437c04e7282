// Field encryption for secrets we must be able to read back (identity secrets, connector
// credentials): AES-256-GCM with a fresh 96-bit IV per value, the key from SECRET_KEY, and
// associated data naming the table, column and row, so a ciphertext copied into another row or
// column fails to decrypt instead of leaking there.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";

export interface FieldCipher {
  encrypt(plaintext: string, context: string): string;
  decrypt(ciphertext: string, context: string): string;
}

export function createFieldCipher(key: Buffer): FieldCipher {
  if (key.length !== 32) throw new Error("field encryption key must be 32 bytes");
  return {
    encrypt(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${iv.toString("base64url")}.${body.toString("base64url")}`;
    },
    decrypt(ciphertext, context) {
      const [version, ivPart, bodyPart] = ciphertext.split(".");
      if (version !== VERSION || !ivPart || !bodyPart) throw new Error("unrecognised ciphertext format");
      const body = Buffer.from(bodyPart, "base64url");
      if (body.length < 16) throw new Error("ciphertext too short");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(ivPart, "base64url"));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString("utf8");
    },
  };
}
