// The staff pages' only stylesheet, served by the app itself (no CDN). Focus is always visible, text
// keeps WCAG AA contrast, and the layout reads on a laptop screen without horizontal scrolling.
export const STAFF_CSS = `
*, *::before, *::after { box-sizing: border-box; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; font-size: 100%; line-height: 1.5; color: #1b1f24; background: #f6f7f9; }
body { margin: 0; }
a { color: #0b57a4; }
a:hover { color: #083d73; }
:focus-visible { outline: 3px solid #c2410c; outline-offset: 2px; border-radius: 2px; }
.skip-link { position: absolute; left: 0.5rem; top: -3rem; padding: 0.5rem 1rem; background: #fff; color: #0b57a4; z-index: 10; }
.skip-link:focus { top: 0.5rem; }
header.site { background: #1f2937; color: #f9fafb; }
header.site .bar { max-width: 72rem; margin: 0 auto; padding: 0.75rem 1.5rem; display: flex; flex-wrap: wrap; align-items: center; gap: 1rem 2rem; }
header.site .brand { font-weight: 700; margin-right: auto; }
header.site a { color: #f9fafb; }
header.site nav ul { list-style: none; display: flex; gap: 1.5rem; margin: 0; padding: 0; }
header.site .who { display: flex; align-items: center; gap: 0.75rem; }
header.site :focus-visible { outline-color: #fbbf24; }
main { display: block; max-width: 72rem; margin: 0 auto; padding: 1.5rem; }
main:focus { outline: none; }
h1 { font-size: 1.75rem; margin: 0 0 1rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 0.75rem; }
h3 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
.panel { background: #fff; border: 1px solid #d0d5dd; border-radius: 6px; padding: 1rem 1.25rem; margin: 1rem 0; }
.narrow { max-width: 26rem; }
form.stack label { display: block; font-weight: 600; margin: 0.75rem 0 0.25rem; }
form.inline { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 0.75rem; }
form.inline label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
input[type=text], input[type=password], input[type=search] { font: inherit; padding: 0.45rem 0.6rem; border: 1px solid #6b7280; border-radius: 4px; width: 100%; min-width: 16rem; background: #fff; color: inherit; }
button, .button { font: inherit; display: inline-block; padding: 0.45rem 1rem; border: 1px solid #0b57a4; border-radius: 4px; background: #0b57a4; color: #fff; cursor: pointer; text-decoration: none; }
button:hover, .button:hover { background: #083d73; color: #fff; }
button.link { background: transparent; border-color: #f9fafb; color: #f9fafb; padding: 0.2rem 0.75rem; }
.message { padding: 0.75rem 1rem; border-radius: 4px; border: 1px solid; margin: 1rem 0; }
.message.error { background: #fef2f2; border-color: #b91c1c; color: #7f1d1d; }
.message.info { background: #eff6ff; border-color: #1d4ed8; color: #1e3a8a; }
table { border-collapse: collapse; width: 100%; background: #fff; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 0.5rem 0; }
th, td { text-align: left; padding: 0.45rem 0.75rem; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
th { background: #f1f3f5; }
td.num, th.num { text-align: right; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.35rem 1.5rem; margin: 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
.counts { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: 1rem; list-style: none; padding: 0; margin: 0; }
.counts li { background: #fff; border: 1px solid #d0d5dd; border-radius: 6px; padding: 0.75rem 1rem; }
.counts .n { display: block; font-size: 1.6rem; font-weight: 700; }
.pager { display: flex; gap: 1.5rem; margin: 1rem 0; }
.muted { color: #4b5563; }
.body-text { white-space: pre-wrap; overflow-wrap: anywhere; }
`;
