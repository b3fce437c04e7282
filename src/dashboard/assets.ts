// The dashboard's stylesheet and its one enhancement script, served from /assets/ (the CSP allows
// scripts and styles from this origin only, nothing inline). Every page works without the script:
// it disables a long action's button and shows its progress label, copies snippets, derives a
// connector slug as the name is typed (§2.1), asks before destructive actions, and renders a
// markdown preview on demand.
import { Elysia } from "elysia";

export const DASHBOARD_CSS = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #586174; --bg: #f4f5f8; --card: #fff; --accent: #2f5bea; --accent-soft: #e6ecfd; --danger: #b3261e; --ok: #1b6e3a; --warn: #8a5300; --border: #d5d9e2; --on-accent: #fff; --code: #eef0f5; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaf0; --muted: #a3abbd; --bg: #11141a; --card: #1b1f28; --accent: #8aa6ff; --accent-soft: #232c45; --danger: #ff8a80; --ok: #7ddc9c; --warn: #f5c26b; --border: #3a4150; --on-accent: #0b1020; --code: #252a35; } }
* { box-sizing: border-box; }
body.dash { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--accent); }
.skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: .5rem 1rem; z-index: 10; }
.skip:focus { left: 1rem; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.topbar { display: flex; align-items: center; gap: 1rem; padding: .6rem 1.25rem; background: var(--card); border-bottom: 1px solid var(--border); }
.topbar .brand { font-weight: 700; text-decoration: none; color: var(--fg); margin-right: auto; }
.topbar .org, .topbar .who { color: var(--muted); font-size: .9rem; }
.topbar form { margin: 0; display: flex; gap: .4rem; align-items: center; }
.frame { display: grid; grid-template-columns: 13rem 1fr; min-height: calc(100vh - 3.2rem); }
.frame > nav { background: var(--card); border-right: 1px solid var(--border); padding: 1rem .6rem; }
.frame > nav ul { list-style: none; margin: 0; padding: 0; }
.frame > nav a { display: block; padding: .45rem .7rem; border-radius: 8px; color: var(--fg); text-decoration: none; }
.frame > nav a:hover { background: var(--accent-soft); }
.frame > nav a[aria-current=page] { background: var(--accent-soft); color: var(--accent); font-weight: 600; }
main#content { padding: 1.5rem 2rem 3rem; max-width: 68rem; outline: none; }
main.lone { margin: 4rem auto; max-width: 32rem; background: var(--card); border: 1px solid var(--border); border-radius: 12px; padding: 2rem; }
@media (max-width: 48rem) { .frame { grid-template-columns: 1fr; } .frame > nav ul { display: flex; flex-wrap: wrap; gap: .25rem; } main#content { padding: 1rem; } }
h1 { font-size: 1.45rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.75rem 0 .75rem; }
p { margin: 0 0 .9rem; }
.muted, .hint { color: var(--muted); font-size: .88rem; }
.hint { margin: .25rem 0 0; }
.panel { background: var(--card); border: 1px solid var(--border); border-radius: 12px; padding: 1.25rem 1.4rem; margin-bottom: 1.25rem; }
.panel > h2:first-child { margin-top: 0; }
.keyrow { border-bottom: 1px solid var(--border); padding-bottom: 1rem; margin-bottom: 1rem; }
.keyrow label { display: block; font-weight: 600; margin: 0 0 .3rem; }
.snippet { font-size: .8rem; }
.field { margin: 0 0 1rem; }
.field label { display: block; font-weight: 600; margin: 0 0 .3rem; }
input[type=text], input[type=email], input[type=url], input[type=password], input[type=number], input[type=search], select, textarea { width: 100%; padding: .5rem .65rem; font: inherit; color: inherit; background: var(--card); border: 1px solid var(--border); border-radius: 8px; }
input[type=color] { width: 4rem; height: 2.3rem; padding: .1rem; border: 1px solid var(--border); border-radius: 8px; background: var(--card); }
textarea { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .88rem; }
.has-error input, .has-error textarea, .has-error select { border-color: var(--danger); }
.field-error { color: var(--danger); font-weight: 600; font-size: .88rem; margin: .3rem 0 0; }
.check { display: flex; gap: .5rem; align-items: baseline; margin: .35rem 0; flex-wrap: wrap; }
.check label { font-weight: 500; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button, .button { display: inline-block; padding: .5rem .95rem; font: inherit; font-weight: 600; border-radius: 8px; border: 1px solid var(--accent); background: var(--accent); color: var(--on-accent); cursor: pointer; text-decoration: none; }
button.secondary, .button.secondary { background: transparent; color: var(--fg); border-color: var(--border); }
button.danger { background: transparent; color: var(--danger); border-color: var(--danger); }
button.small { padding: .25rem .6rem; font-size: .85rem; }
button[disabled] { opacity: .65; cursor: progress; }
form.inline { display: inline; margin: 0; }
.actions { display: flex; gap: .6rem; flex-wrap: wrap; align-items: center; margin-top: 1rem; }
.toolbar { display: flex; gap: .75rem; align-items: end; flex-wrap: wrap; margin-bottom: 1rem; }
.toolbar .field { margin: 0; min-width: 16rem; }
.flash { padding: .6rem .85rem; border-radius: 8px; border: 1px solid; }
.flash.ok { color: var(--ok); border-color: var(--ok); }
.flash.error, .error { color: var(--danger); border: 1px solid var(--danger); border-radius: 8px; padding: .6rem .85rem; margin: 0 0 1rem; }
.error ul { margin: .25rem 0 0; }
table { width: 100%; margin-bottom: 1.25rem; border-collapse: collapse; background: var(--card); border: 1px solid var(--border); border-radius: 12px; overflow: hidden; }
th, td { text-align: left; padding: .55rem .75rem; border-bottom: 1px solid var(--border); vertical-align: top; }
th { font-size: .8rem; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); }
tr:last-child td { border-bottom: none; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .78rem; font-weight: 600; border: 1px solid var(--border); color: var(--muted); margin-right: .25rem; }
.badge.ok { color: var(--ok); border-color: var(--ok); }
.badge.warn { color: var(--warn); border-color: var(--warn); }
.badge.danger { color: var(--danger); border-color: var(--danger); }
.badge.accent { color: var(--accent); border-color: var(--accent); }
.pager { display: flex; gap: 1rem; align-items: center; margin: 1rem 0; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85rem; }
pre { background: var(--code); border-radius: 8px; padding: .75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
iframe.mail-preview { display: block; width: 100%; height: 22rem; margin: .5rem 0 .75rem; border: 1px solid var(--border); border-radius: 8px; background: #fff; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 1.25rem; }
@media (max-width: 60rem) { .grid2 { grid-template-columns: 1fr; } }
.preview { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: .75rem 1rem; min-height: 8rem; }
.checklist { list-style: none; padding: 0; margin: 0; }
.checklist li { padding: .4rem 0; border-bottom: 1px solid var(--border); }
.checklist li:last-child { border-bottom: none; }
.cards .panel { margin: 0; text-decoration: none; color: var(--fg); }
.cards .panel strong { color: var(--accent); display: block; margin-bottom: .25rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: 1rem; }
.swatch { display: inline-block; width: 1rem; height: 1rem; border-radius: 4px; border: 1px solid var(--border); vertical-align: middle; }
fieldset { border: 1px solid var(--border); border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
legend { font-weight: 600; padding: 0 .3rem; }
@media (prefers-reduced-motion: reduce) { * { transition: none !important; animation: none !important; } }
`;

/** Progressive enhancement only: every control works without it. */
export const DASHBOARD_JS = `"use strict";
(function () {
  // Long actions: disable the button and show its progress label while the request runs.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    var question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { event.preventDefault(); return; }
    var button = event.submitter || form.querySelector("button[type=submit]");
    if (button && button.getAttribute("data-busy")) {
      var label = button.getAttribute("data-busy");
      // Disabled after the submit is dispatched, so the button's own name/value is still sent.
      setTimeout(function () { button.disabled = true; button.textContent = label; form.setAttribute("aria-busy", "true"); }, 0);
    }
  });
  // Copy buttons: data-copy names the element whose text is copied.
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source) return;
      var text = source.value !== undefined ? source.value : source.textContent;
      var done = function () { var old = button.textContent; button.textContent = "Copied"; setTimeout(function () { button.textContent = old; }, 1500); };
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, function () { select(source); });
      else select(source);
    });
  });
  function select(el) { if (el.select) el.select(); }
  // Slug derived from the name as it is typed (§2.1), until the slug is edited by hand.
  document.querySelectorAll("[data-slug-from]").forEach(function (slug) {
    var name = document.getElementById(slug.getAttribute("data-slug-from"));
    if (!name) return;
    var touched = slug.value !== "";
    slug.addEventListener("input", function () { touched = slug.value !== ""; });
    name.addEventListener("input", function () {
      if (touched) return;
      slug.value = name.value.toLowerCase().normalize("NFKD").replace(/[\\u0300-\\u036f]/g, "").replace(/[^a-z0-9]+/g, "_").replace(/^[^a-z]+|_+$/g, "").slice(0, 32).replace(/_+$/, "");
    });
  });
  // Markdown upload: the chosen file's text goes into the form's text field (the form stays urlencoded).
  document.querySelectorAll("[data-file-import] input[type=file]").forEach(function (input) {
    input.addEventListener("change", function () {
      var file = input.files && input.files[0];
      var target = input.form && input.form.elements.namedItem("content");
      if (!file || !target) return;
      file.text().then(function (text) { target.value = text; });
    });
  });
  // Credentials: only the fields of the chosen authentication method are shown (all without the script).
  document.querySelectorAll("select[name=auth_method]").forEach(function (method) {
    var scope = method.closest("fieldset");
    var show = function () {
      scope.querySelectorAll("[data-auth]").forEach(function (el) { el.hidden = el.getAttribute("data-auth") !== method.value; });
    };
    method.addEventListener("change", show);
    show();
  });
  // A ticket's thread follows its events (README "Live conversation"): on each one the thread is
  // fetched again and swapped in, so new customer messages show without a reload; after a cut it
  // reconnects from the last event id, waiting a little longer each time (at most 30 s).
  document.querySelectorAll("[data-live-events]").forEach(function (thread) {
    var last = thread.getAttribute("data-last-event-id"), attempt = 0;
    var refresh = function () {
      fetch(location.pathname, { credentials: "same-origin" }).then(function (res) { return res.text(); }).then(function (text) {
        var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("thread");
        if (fresh) thread.replaceChildren.apply(thread, Array.prototype.map.call(fresh.childNodes, function (n) { return document.importNode(n, true); }));
      }).catch(function () {});
    };
    var follow = function () {
      var headers = { "X-Org-Id": thread.getAttribute("data-org") };
      if (last) headers["Last-Event-ID"] = last;
      fetch(thread.getAttribute("data-live-events"), { headers: headers, credentials: "same-origin" }).then(function (res) {
        if (res.status === 401 || res.status === 403 || res.status === 404) return "stop";
        if (!res.ok || !res.body) return;
        attempt = 0;
        var reader = res.body.pipeThrough(new TextDecoderStream()).getReader(), buffer = "";
        var pump = function () {
          return reader.read().then(function (r) {
            if (r.done) return;
            buffer += r.value.replace(/\\r\\n?/g, "\\n");
            var blocks = buffer.split("\\n\\n");
            buffer = blocks.pop();
            var changed = false;
            blocks.forEach(function (block) {
              block.split("\\n").forEach(function (line) {
                if (line.indexOf("id:") === 0) { last = line.slice(3).trim(); changed = true; }
              });
            });
            if (changed) refresh();
            return pump();
          });
        };
        return pump();
      }).catch(function () {}).then(function (outcome) {
        if (outcome !== "stop") setTimeout(follow, Math.min(30000, 1000 * Math.pow(2, attempt++)));
      });
    };
    follow();
  });
  // Change a select, submit its form (with a visible button as the no-script path).
  document.querySelectorAll("select[data-autosubmit]").forEach(function (s) { s.addEventListener("change", function () { s.form && s.form.requestSubmit(); }); });
})();
`;

export function dashboardAssets() {
  return new Elysia({ name: "dashboard-assets" })
    .get("/assets/dashboard.css", () => new Response(DASHBOARD_CSS, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=300", "x-content-type-options": "nosniff" } }))
    .get("/assets/dashboard.js", () => new Response(DASHBOARD_JS, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=300", "x-content-type-options": "nosniff" } }));
}
