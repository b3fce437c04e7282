// The help centre's stylesheet, served from its own origin (/help/<slug>/help.css, or /help.css
// on a custom domain): the page's CSP allows styles only from there. Light and dark follow the
// reader's preference; the colours keep WCAG AA contrast in both (axe checks them).
export const HELP_CSS =
  `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #535c6e; --bg: #f6f7f9; ` +
  `--card: #fff; --accent: #2448c9; --border: #d5d9e2; --code: #eef0f4; --on-accent: #fff; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaf0; --muted: #a9b1c2; --bg: #11141a; ` +
  `--card: #1b1f28; --accent: #8fa8ff; --border: #343a47; --code: #232835; --on-accent: #0b1020; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.6 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--accent); }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--card); padding: .5rem; }
header.site { background: var(--card); border-bottom: 1px solid var(--border); }
header.site .bar, main, footer.site { max-width: 52rem; margin: 0 auto; padding: 1rem 1.25rem; }
nav.languages ul { list-style: none; display: flex; gap: .75rem; margin: 0; padding: 0; font-size: .9rem; }
.notice { border: 1px solid var(--accent); border-radius: 8px; padding: .6rem .8rem; margin-top: 1.5rem; }
header.site .bar { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between; }
header.site .name { font-weight: 700; font-size: 1.1rem; text-decoration: none; color: var(--fg); }
form.search { display: flex; gap: .5rem; flex: 1 1 18rem; max-width: 28rem; }
form.search input { flex: 1; min-width: 0; padding: .5rem .7rem; font: inherit; ` +
  `color: var(--fg); background: var(--bg); border: 1px solid var(--muted); border-radius: 8px; }
button { padding: .5rem 1rem; font: inherit; font-weight: 600; border-radius: 8px; ` +
  `border: 1px solid var(--accent); background: var(--accent); color: var(--on-accent); cursor: pointer; }
button.secondary { background: transparent; color: var(--fg); border-color: var(--muted); }
input:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
h1 { font-size: 1.8rem; line-height: 1.25; margin: .5rem 0 1rem; }
h2 { font-size: 1.35rem; margin: 2rem 0 .75rem; }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
.anchor { text-decoration: none; color: var(--muted); font-weight: 400; }
nav.crumbs ol { list-style: none; padding: 0; margin: 0 0 .5rem; display: flex; flex-wrap: wrap; gap: .4rem; color: var(--muted); font-size: .9rem; }
nav.crumbs li + li::before { content: "›"; margin-right: .4rem; }
.muted { color: var(--muted); font-size: .9rem; }
ul.cards { list-style: none; padding: 0; display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); }
ul.cards li, ul.list li { background: var(--card); border: 1px solid var(--border); border-radius: 10px; padding: 1rem 1.1rem; }
ul.list { list-style: none; padding: 0; display: grid; gap: .6rem; }
ul.list p { margin: .3rem 0 0; }
article.doc { background: var(--card); border: 1px solid var(--border); border-radius: 12px; padding: 1.25rem 1.5rem; }
article.doc img { max-width: 100%; height: auto; }
pre { background: var(--code); padding: .8rem 1rem; border-radius: 8px; overflow-x: auto; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: .9em; background: var(--code); padding: .1em .3em; border-radius: 4px; }
pre code { background: none; padding: 0; }
.table { overflow-x: auto; margin: 1rem 0; }
table { border-collapse: collapse; min-width: 50%; }
th, td { border: 1px solid var(--border); padding: .4rem .7rem; text-align: start; }
.align-center { text-align: center; } .align-right { text-align: end; }
mark { background: #ffe58a; color: #1d2330; }
form.vote { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin-top: 1.5rem; }
form.vote p { margin: 0; font-weight: 600; }
footer.site { color: var(--muted); font-size: .9rem; }
`;
