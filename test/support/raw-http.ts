// Requests no HTTP client library will send (no Host header, a Host with userinfo): written as
// bytes on a TCP socket, the answer read until the server closes the connection.
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Headers;
  body: string;
}

/** Sends `head` (request line and header lines, without the blank line) and parses the answer. */
export function rawRequest(port: number, head: string, host = "127.0.0.1"): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, host, () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const end = text.indexOf("\r\n\r\n");
      const [statusLine = "", ...lines] = text.slice(0, end === -1 ? text.length : end).split("\r\n");
      const headers = new Headers();
      for (const line of lines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers, body: end === -1 ? "" : text.slice(end + 4) });
    });
  });
}
