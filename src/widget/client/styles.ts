// The widget's stylesheet, adopted by its shadow root. `:host` declarations are `!important` so the
// page's rules on our element (even `* { all: unset !important }`) lose to them; everything inside
// the shadow tree is out of the page's reach. Sizes in px: the page may change the root font size.
// Colours meet WCAG AA contrast in both schemes.
export const STYLES = `
:host {
  all: initial !important;
  display: block !important;
  position: fixed !important;
  inset: auto 20px 20px auto !important;
  width: auto !important;
  height: auto !important;
  z-index: 2147483000 !important;
  visibility: visible !important;
  opacity: 1 !important;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif !important;
  color-scheme: light dark;
  --sa-fg: #1d2330; --sa-muted: #4f5869; --sa-bg: #ffffff; --sa-soft: #eef1f7; --sa-accent: #2f5bea; --sa-on-accent: #ffffff;
  --sa-border: #c9cfdb; --sa-note: #fff6db; --sa-note-fg: #5a4500; --sa-danger: #a1261e; --sa-shadow: 0 12px 40px rgba(16, 24, 40, .22);
}
:host(.left) { inset: auto auto 20px 20px !important; }
:host(.left) .panel { right: auto; left: 0; }
:host(.left) .launcher { margin-left: 0; }
@media (prefers-color-scheme: dark) {
  :host {
    --sa-fg: #e8eaf0; --sa-muted: #b4bccb; --sa-bg: #1b1f28; --sa-soft: #272c38; --sa-accent: #8aa4ff; --sa-on-accent: #0b1020;
    --sa-border: #414857; --sa-note: #3a3220; --sa-note-fg: #f3dc9a; --sa-danger: #ff9b93; --sa-shadow: 0 12px 40px rgba(0, 0, 0, .55);
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
button { font: inherit; cursor: pointer; border-radius: 10px; border: 1px solid var(--sa-accent); background: var(--sa-accent); color: var(--sa-on-accent); padding: 8px 14px; font-weight: 600; }
button:disabled { opacity: .6; cursor: default; }
button.secondary { background: var(--sa-bg); color: var(--sa-accent); }
button:focus-visible, textarea:focus-visible, a:focus-visible, .log:focus-visible { outline: 3px solid var(--sa-accent); outline-offset: 2px; }
.launcher { display: grid; place-items: center; width: 58px; height: 58px; padding: 0; border-radius: 50%; box-shadow: var(--sa-shadow); margin-left: auto; }
.launcher svg { width: 28px; height: 28px; fill: currentColor; }
.panel {
  position: absolute; right: 0; bottom: 72px; width: 370px; max-width: calc(100vw - 40px); height: 560px; max-height: calc(100vh - 112px);
  display: flex; flex-direction: column; background: var(--sa-bg); color: var(--sa-fg); border: 1px solid var(--sa-border); border-radius: 16px; box-shadow: var(--sa-shadow); overflow: hidden;
}
header { display: flex; align-items: flex-start; justify-content: space-between; gap: 12px; padding: 14px 16px; background: var(--sa-accent); color: var(--sa-on-accent); }
h2 { margin: 0; font-size: 17px; line-height: 1.3; }
.subtitle { margin: 2px 0 0; font-size: 13px; }
button.icon { background: transparent; border-color: transparent; color: inherit; padding: 4px; display: grid; place-items: center; }
button.icon svg { width: 22px; height: 22px; fill: currentColor; }
.who { display: flex; align-items: center; gap: 10px; min-width: 0; }
.avatar { width: 36px; height: 36px; border-radius: 50%; object-fit: cover; flex: none; background: var(--sa-soft); }
.avatar[hidden] { display: none; }
header button.icon:focus-visible { outline-color: var(--sa-on-accent); }
.log { flex: 1; overflow-y: auto; padding: 14px 16px; display: flex; flex-direction: column; gap: 10px; }
.empty { margin: auto 0; color: var(--sa-muted); text-align: center; font-size: 14px; }
.msg { max-width: 88%; padding: 9px 12px; border-radius: 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; background: var(--sa-accent); color: var(--sa-on-accent); border-bottom-right-radius: 4px; }
.msg.agent { align-self: flex-start; background: var(--sa-soft); color: var(--sa-fg); border-bottom-left-radius: 4px; }
.msg.note { align-self: stretch; max-width: none; background: var(--sa-note); color: var(--sa-note-fg); font-size: 14px; }
.msg.user a { color: inherit; }
.msg a { color: var(--sa-accent); text-decoration: underline; }
.msg.note a { color: inherit; }
.sources { margin: 6px 0 0; padding: 6px 0 0 18px; border-top: 1px solid var(--sa-border); font-size: 13px; white-space: normal; }
.sources li { margin: 2px 0; }
.msg.streaming .text:empty::after { content: "…"; color: var(--sa-muted); }
.retry { display: block; margin-top: 8px; padding: 4px 12px; }
.tools { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; padding: 0 16px 8px; }
.person { padding: 5px 12px; font-size: 14px; }
.status { margin: 0; font-size: 13px; color: var(--sa-muted); flex-basis: 100%; }
.status:empty { display: none; }
.composer { display: flex; gap: 8px; padding: 10px 12px 12px; border-top: 1px solid var(--sa-border); }
textarea { flex: 1; resize: none; font: inherit; color: var(--sa-fg); background: var(--sa-bg); border: 1px solid var(--sa-border); border-radius: 10px; padding: 8px 10px; min-height: 42px; }
textarea::placeholder { color: var(--sa-muted); opacity: 1; }
@media (prefers-reduced-motion: no-preference) {
  .panel:not([hidden]) { animation: rise .18s ease-out; }
  .launcher { transition: transform .15s ease; }
  .launcher:hover { transform: scale(1.05); }
}
@keyframes rise { from { opacity: 0; transform: translateY(12px); } to { opacity: 1; transform: none; } }
@media (max-width: 480px) {
  .panel { position: fixed; inset: 8px; width: auto; height: auto; max-height: none; max-width: none; bottom: 8px; }
}
`;
