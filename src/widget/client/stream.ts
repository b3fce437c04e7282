// Reads a streamed chat answer (README "Chat"): text outside 0x1E…0x1E records is the reply; a
// record (`__ACTION__{json}`, `__ACTIONS__[…]`, `__ERROR__{json}`) is handed over once it is whole.
const RS = "\x1e";

export interface ChatStreamSink {
  text(piece: string): void;
  record(record: string): void;
  /** After each chunk read, once its text and records are handled. */
  chunk(): void;
}

export async function readChatStream(body: NonNullable<Response["body"]>, sink: ChatStreamSink): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    for (;;) {
      const at = buffer.indexOf(RS);
      if (at === -1) {
        sink.text(buffer);
        buffer = "";
        break;
      }
      sink.text(buffer.slice(0, at));
      const end = buffer.indexOf(RS, at + 1);
      if (end === -1) {
        buffer = buffer.slice(at);
        break;
      }
      const record = buffer.slice(at + 1, end);
      buffer = buffer.slice(end + 1);
      sink.record(record);
    }
    sink.chunk();
  }
}
