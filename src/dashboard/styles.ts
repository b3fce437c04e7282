// The dashboard's stylesheet, served at /assets/dashboard.css (assets.ts): light and dark, no
// external assets, nothing inline (the CSP allows styles from this origin only).
export const DASHBOARD_CSS = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #586174; --bg: #f4f5f8; --card: #fff; --accent: #2f5bea; --accent-soft: #e6ecfd; --danger: #b3261e;
  --ok: #1b6e3a; --warn: #8a5300; --border: #d5d9e2; --on-accent: #fff; --code: #eef0f5; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaf0; --muted: #a3abbd; --bg: #11141a; --card: #1b1f28; --accent: #8aa6ff; --accent-soft: #232c45;
  --danger: #ff8a80; --ok: #7ddc9c; --warn: #f5c26b; --border: #3a4150; --on-accent: #0b1020; --code: #252a35; } }
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
@media (max-width: 48rem) { .frame { grid-template-columns: 1fr; } .frame > nav ul { display: flex; flex-wrap: wrap; gap: .25rem;
  } main#content { padding: 1rem; } }
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
input[type=text], input[type=email], input[type=url], input[type=password], input[type=number], input[type=search], select, textarea { width: 100%;
  padding: .5rem .65rem; font: inherit; color: inherit; background: var(--card); border: 1px solid var(--border); border-radius: 8px; }
input[type=color] { width: 4rem; height: 2.3rem; padding: .1rem; border: 1px solid var(--border); border-radius: 8px; background: var(--card); }
textarea { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .88rem; }
.has-error input, .has-error textarea, .has-error select { border-color: var(--danger); }
::placeholder { color: var(--muted); font-style: italic; opacity: 1; }
.field-error { color: var(--danger); font-weight: 600; font-size: .88rem; margin: .3rem 0 0; }
.check { display: flex; gap: .5rem; align-items: baseline; margin: .35rem 0; flex-wrap: wrap; }
.check label { font-weight: 500; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button, .button { display: inline-block; padding: .5rem .95rem; font: inherit; font-weight: 600; border-radius: 8px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--on-accent); cursor: pointer; text-decoration: none; }
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
table { width: 100%; margin-bottom: 1.25rem; border-collapse: collapse; background: var(--card); border: 1px solid var(--border); border-radius: 12px;
  overflow: hidden; }
th, td { text-align: left; padding: .55rem .75rem; border-bottom: 1px solid var(--border); vertical-align: top; }
th { font-size: .8rem; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); }
tr:last-child td { border-bottom: none; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .78rem; font-weight: 600; border: 1px solid var(--border);
  color: var(--muted); margin-right: .25rem; white-space: nowrap; }
td > ul, td > ol { margin: 0; padding-left: 1.25rem; }
td > ul.plain { list-style: none; padding-left: 0; }
.badge.ok { color: var(--ok); border-color: var(--ok); }
.badge.warn { color: var(--warn); border-color: var(--warn); }
.badge.danger { color: var(--danger); border-color: var(--danger); }
.badge.accent { color: var(--accent); border-color: var(--accent); }
.pager { display: flex; gap: 1rem; align-items: center; margin: 1rem 0; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85rem; }
pre { background: var(--code); border-radius: 8px; padding: .75rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.turn { border: 1px solid var(--border); border-radius: 8px; padding: .6rem .9rem; margin: 0 0 .75rem; background: var(--card); max-width: 48rem; }
.turn-head { margin: 0 0 .35rem; }
.turn-text { white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.5; }
details.original { margin-top: .5rem; border-top: 1px dashed var(--border); padding-top: .35rem; }
details.original > summary { color: var(--muted); font-size: .88rem; cursor: pointer; }
.turn-ai { border-left: 4px solid var(--accent); }
.turn-person { border-left: 4px solid var(--ok); margin-left: 2rem; }
.turn-note { border: 1px dashed var(--warn); background: var(--code); margin-left: 2rem; }
.frame > nav ul.queues { margin: 0 0 .25rem .8rem; font-size: .92em; }
.frame > nav ul.queues a { display: flex; justify-content: space-between; align-items: center; padding: .25rem .7rem; }
iframe.mail-preview { display: block; width: 100%; height: 22rem; margin: .5rem 0 .75rem; border: 1px solid var(--border); border-radius: 8px;
  background: #fff; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 1.25rem; }
@media (max-width: 60rem) { .grid2 { grid-template-columns: 1fr; } }
.preview { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: .75rem 1rem; min-height: 8rem; }
.checklist { list-style: none; padding: 0; margin: 0; }
.checklist li { padding: .4rem 0; border-bottom: 1px solid var(--border); }
.checklist li:last-child { border-bottom: none; }
.cards .panel { margin: 0; text-decoration: none; color: var(--fg); }
.cards .panel strong { color: var(--accent); display: block; margin-bottom: .25rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: 1rem; }
.headlines dd { margin: .25rem 0 0; }
.chart { display: block; width: 100%; height: auto; max-width: 48rem; margin: .5rem 0 1rem; }
.swatch { display: inline-block; width: 1rem; height: 1rem; border-radius: 4px; border: 1px solid var(--border); vertical-align: middle; }
fieldset { border: 1px solid var(--border); border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
legend { font-weight: 600; padding: 0 .3rem; }
@media (prefers-reduced-motion: reduce) { * { transition: none !important; animation: none !important; } }
.subnav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .4rem; padding: 0; margin: 0 0 1.25rem; }
.subnav a { display: inline-block; padding: .3rem .7rem; border: 1px solid var(--border); border-radius: 999px; text-decoration: none; }
.subnav a[aria-current=page] { background: var(--accent-soft); font-weight: 600; }
`;
