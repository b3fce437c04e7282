// The product's one stylesheet, served at /assets/app.css.
export const APP_CSS =
  `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6475; --bg: #f4f5f8; ` +
  `--card: #fff; --accent: #2f5bea; --danger: #b3261e; --border: #d5d9e2; --on-accent: #fff; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaf0; --muted: #a3abbd; --bg: #11141a; ` +
  `--card: #1b1f28; --accent: #7d9bff; --danger: #ff8a80; --border: #343a47; --on-accent: #0b1020; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: var(--bg); ` +
  `color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
.card { width: min(26rem, calc(100vw - 2rem)); background: var(--card); border: 1px solid var(--border); border-radius: 12px; padding: 2rem; }
h1 { font-size: 1.35rem; margin: 0 0 1rem; }
p { margin: 0 0 1rem; }
.muted { color: var(--muted); font-size: .9rem; }
label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
input[type=email], input[type=password], input[type=text], select { width: 100%; padding: .6rem .7rem; ` +
  `font: inherit; color: inherit; background: transparent; border: 1px solid var(--border); border-radius: 8px; }
input:focus-visible, button:focus-visible, select:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
button { flex: 1; padding: .65rem 1rem; font: inherit; font-weight: 600; border-radius: 8px; ` +
  `border: 1px solid var(--accent); background: var(--accent); color: var(--on-accent); cursor: pointer; }
button.secondary { background: transparent; color: var(--fg); border-color: var(--border); }
.error { color: var(--danger); border: 1px solid var(--danger); border-radius: 8px; padding: .6rem .8rem; }
.notice { border: 1px solid var(--accent); border-radius: 8px; padding: .6rem .8rem; }
ul { padding-left: 1.2rem; }
code { font-size: .85rem; word-break: break-all; }
`;
