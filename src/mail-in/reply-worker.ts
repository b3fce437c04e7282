// The thread that strips quoted history and signatures from an inbound email's text
// (email-reply-parser). Some of its quote-header patterns take quadratic time on hostile text; here
// a slow one holds only this thread, which src/mail-in/reply-thread.ts ends after its time limit.
// This file is an entrypoint of the compiled binary (scripts/build.ts).
import EmailReplyParser from "email-reply-parser";
import type { ReplyRequest, ReplyResult } from "./reply-thread.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<ReplyRequest>) => {
  const { id, text } = event.data;
  let result: ReplyResult;
  try {
    result = { id, visible: new EmailReplyParser().parseReply(text) };
  } catch (error) {
    result = { id, error: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(result);
};
