// GET /demo: a stand-in for a customer's site with the demo org's widget on it, so `npm start` and
// one click let a newcomer chat with the builtin provider over the demo knowledge base.
import type { DemoInfo } from "../orgs/demo.ts";
import { html, page } from "../html/html.ts";

/** The two-line install snippet: a stub queuing calls made before the script loads, then the script. */
export function installSnippet(baseUrl: string, widgetKey: string, orgId: string): string {
  return [
    `<script>window.SvcAgents=window.SvcAgents||function(){(SvcAgents.q=SvcAgents.q||[]).push(arguments)}</script>`,
    `<script src="${baseUrl}/widget.js" data-key="${widgetKey}" data-org="${orgId}" async></script>`,
  ].join("\n");
}

/**
 * The page's policy: the house CSP plus what the widget needs (README "Widget", which tells
 * embedding sites the same): our script and API (it loads from here), `media-src blob:` for the
 * server's speech (fetched, then played from a blob: URL; without it every play() fails),
 * `img-src https:` for the agent's picture and people's avatars (https URLs of the org's choice).
 */
export const DEMO_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data: https:; " +
  "media-src blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function demoPage(baseUrl: string, demo: DemoInfo, voice = false): Response {
  const questions = ["How do I reset my password?", "Can I get a refund?", "How do I cancel my plan?"];
  return page(
    "Demo",
    html`<h1>Try the chat widget</h1>
<p>This page stands in for your website. The round button in the bottom-right corner is the widget; \
it answers from the demo organisation's help articles with the builtin provider (no model or key needed).</p>
<p>Questions to try:</p>
<ul>${questions.map((q) => html`<li>${q}</li>`)}</ul>
<p><strong>Voice: ${voice ? "on" : "off"}.</strong> <a href="${voice ? "/demo" : "/demo?voice=on"}">${voice ? "Turn voice off" : "Turn voice on"}</a> — \
${
  voice
    ? "the widget has a microphone button: " +
      "it listens with your browser's speech recognition (some browsers send " +
      "the audio to their vendor) and answers " +
      "aloud with your browser's voices."
    : "a microphone button in the widget, answers spoken aloud."
}</p>
<p>“Talk to a person” opens a ticket you can see in the inbox after <a href="/signin">signing in</a> as ${demo.email}.</p>
<p class="muted">Put it on your own site with:</p>
${installSnippet(baseUrl, demo.widgetKey, demo.orgId)
  .split("\n")
  .map((line) => html`<p><code>${line}</code></p>`)}
<script src="/widget.js" data-key="${demo.widgetKey}" data-org="${demo.orgId}"${voice ? html` data-voice="on"` : ""} async></script>`,
    { csp: DEMO_CSP },
  );
}
