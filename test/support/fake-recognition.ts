// A stand-in for the browser's Web Speech recognition, installed in a page before its scripts run
// (`context.addInitScript(fakeRecognition, script)`). Headless Chromium's own recognition sends the
// audio to its vendor's service, which tests cannot reach (FACTS "Voice in headless Chromium"), so
// the page gets one that behaves as the API says: `start()`, then either the words heard when
// `stop()` is called (a `result`, then `end`), or, `errorAfterMs` after `start()`, an `error` event
// with `error` (e.g. "network", what Chromium fires offline) followed by `end`.

export interface RecognitionScript {
  /** What is heard, delivered on stop(). */
  transcript?: string;
  /** An error code fired by itself after start(), as the browser does when its service fails. */
  error?: string;
  errorAfterMs?: number;
}

/** The init script: runs inside the page (no closure over test variables; `script` is passed as its argument). */
export function fakeRecognition(script: RecognitionScript): void {
  type Handler<T> = ((e: T) => void) | null;
  const w = window as unknown as Record<string, unknown>;
  w.recognitionStarts = 0;
  class FakeRecognition {
    lang = "";
    interimResults = false;
    continuous = false;
    onresult: Handler<{ results: { transcript: string }[][] }> = null;
    onerror: Handler<{ error: string }> = null;
    onend: Handler<void> = null;
    private over = false;
    private end() {
      if (this.over) return;
      this.over = true;
      this.onend?.();
    }
    start() {
      w.recognitionStarts = (w.recognitionStarts as number) + 1;
      if (script.error)
        setTimeout(() => {
          if (this.over) return;
          this.onerror?.({ error: script.error! });
          this.end();
        }, script.errorAfterMs ?? 300);
    }
    stop() {
      setTimeout(() => {
        if (!this.over && script.transcript) this.onresult?.({ results: [[{ transcript: script.transcript }]] });
        this.end();
      }, 0);
    }
    abort() {
      setTimeout(() => this.end(), 0);
    }
  }
  w.SpeechRecognition = FakeRecognition;
  w.webkitSpeechRecognition = FakeRecognition;
}
