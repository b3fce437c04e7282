// Reading a message body (an incoming request or an outgoing call's response) with a size cap:
// more than `maxBytes` — declared by Content-Length or streamed without one — is refused, never
// truncated. Returns null when the cap is passed (the stream is cancelled).
export async function readBodyCapped(message: Request | Response, maxBytes: number): Promise<Uint8Array | null> {
  const declared = Number(message.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await message.body?.cancel();
    return null;
  }
  if (!message.body) return new Uint8Array();
  // A declared length within the cap: the body is exactly that long (HTTP framing), so the
  // runtime's own buffering is safe and much cheaper than reading the stream chunk by chunk —
  // unless it is content-encoded: fetch decodes gzip and br bodies but keeps the encoded length,
  // so 50 KB of gzip would be buffered whole as 50 MB before the size was checked.
  const encoding = message.headers.get("content-encoding");
  if (Number.isFinite(declared) && (encoding === null || encoding.trim().toLowerCase() === "identity")) {
    const bytes = new Uint8Array(await message.arrayBuffer());
    return bytes.byteLength > maxBytes ? null : bytes; // a body built in-process can disagree with its header
  }
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
