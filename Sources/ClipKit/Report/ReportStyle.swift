// report.css: the page's layout, light and dark (prefers-color-scheme), and the pieces report.js switches by class.
enum ReportStyle {
    static let fileName = "report.css"
    /// The page's icon (a file: `data:` URLs are not 'self' under the CSP, and a missing icon is a console error).
    static let iconName = "report.svg"
    static let icon = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0969da"/><path d="M6 4l6 4-6 4z" fill="#fff"/></svg>"## + "\n"

    static let source = #"""
    /* clipkit report */
    :root { --bg: #fff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --card: #f6f8fa; --bad: #cf222e; --warn: #9a6700; --good: #1a7f37; --accent: #0969da; color-scheme: light dark; }
    @media (prefers-color-scheme: dark) {
      :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --card: #161b22; --bad: #ff7b72; --warn: #d29922; --good: #3fb950; --accent: #4493f8; }
    }
    * { box-sizing: border-box; }
    [hidden] { display: none !important; }
    body { margin: 0 auto; max-width: 1400px; padding: 1rem; background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, sans-serif; }
    a { color: var(--accent); }
    h1 { margin: 0 0 .25rem; font-size: 1.5rem; }
    h2 { font-size: 1.15rem; overflow-wrap: anywhere; }
    table { border-collapse: collapse; margin: .5rem 0; max-width: 100%; }
    th, td { border: 1px solid var(--line); padding: .2rem .45rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
    code, pre { font: 13px/1.4 ui-monospace, monospace; }
    pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--card); padding: .5rem; }
    .counts { color: var(--muted); }
    .problems tr.failed td:last-child, .error { color: var(--bad); }
    .problems tr.budget td:last-child, .problems tr.warning td:last-child, .warning { color: var(--warn); }
    .problems.none p { color: var(--good); }
    .problems .notes { color: var(--warn); }
    .filters { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; gap: .35rem; align-items: center; padding: .5rem 0; background: var(--bg); border-bottom: 1px solid var(--line); }
    .filters .group { color: var(--muted); margin-left: .5rem; }
    .chip, .filters button, .compare-controls button { border: 1px solid var(--line); background: var(--card); color: var(--fg); border-radius: 999px; padding: .15rem .6rem; cursor: pointer; font: inherit; }
    .chip[aria-pressed="true"], #pause-all[aria-pressed="true"] { background: var(--accent); color: #fff; border-color: var(--accent); }
    .chip .n { opacity: .7; }
    :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
    .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: .75rem; margin: 1rem 0 2rem; }
    .card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .4rem; min-width: 0; }
    .card.error { border-color: var(--bad); }
    .card.warned { border-color: var(--warn); box-shadow: inset 0 3px var(--warn); }
    .card.over-budget { box-shadow: inset 0 -3px var(--bad); }
    .card.warned.over-budget { box-shadow: inset 0 3px var(--warn), inset 0 -3px var(--bad); }
    .card .flags { margin: .15rem 0 0; display: flex; flex-wrap: wrap; gap: .25rem; font-size: .75rem; }
    .flag { border-radius: 999px; padding: 0 .45rem; border: 1px solid currentColor; }
    .flag.warned { color: var(--warn); }
    .flag.over-budget { color: var(--bad); }
    .top .note, .filmstrip .note { color: var(--warn); }
    .error .from { color: var(--muted); font-size: .85em; }
    .size { white-space: nowrap; }
    .ssim-curve .axis { fill: var(--muted); font-size: 11px; }
    .card .preview { display: block; aspect-ratio: 16 / 9; background: #0003; overflow: hidden; }
    .card img.poster { width: 100%; height: 100%; object-fit: contain; display: block; }
    .card h3 { font-size: .9rem; margin: .3rem 0 0; overflow-wrap: anywhere; }
    .card .meta { margin: 0; color: var(--muted); font-size: .8rem; }
    .noposter { display: flex; height: 100%; align-items: center; justify-content: center; color: var(--muted); }
    section.clip { border-top: 1px solid var(--line); padding-top: .5rem; margin-top: 1rem; scroll-margin-top: 5rem; }
    section.clip h2, section.clip p { overflow-wrap: anywhere; }
    .outputs th, .outputs td { overflow-wrap: normal; }
    .outputs td:nth-child(2), .outputs code { overflow-wrap: anywhere; }
    .outputs td:nth-child(2) { min-width: 8ch; }
    section.clip > h2 > a { text-decoration: none; color: var(--muted); }
    .media { display: flex; flex-wrap: wrap; gap: .75rem; }
    .media figure, .worst figure, .compare figure { margin: 0; }
    .media img, .media video, .worst img, .compare img, .compare video { max-width: min(100%, 480px); max-height: 70vh; width: auto; height: auto; object-fit: contain; display: block; background: #0002; }
    figcaption { color: var(--muted); font-size: .8rem; }
    tr.over td, .over { color: var(--bad); }
    .scrubber { display: inline-block; max-width: 100%; }
    .scrubber img { max-width: 100%; max-height: 70vh; width: auto; height: auto; object-fit: contain; display: block; margin-bottom: .25rem; }
    .scrubber.live { display: block; width: min(100%, 480px, calc(70vh * var(--tile-ratio, 1.7778))); cursor: ew-resize; padding-bottom: .25rem; }
    .scrubber .tile { width: 100%; aspect-ratio: var(--tile-ratio, 1.7778); background-repeat: no-repeat; background-color: #0003; }
    .scrubber .bar { height: 6px; background: var(--line); margin-top: 4px; }
    .scrubber .knob { height: 100%; background: var(--accent); width: 0; }
    .filmstrip ol { display: flex; flex-wrap: wrap; gap: .4rem; list-style: none; padding: 0; }
    .filmstrip li { font-size: .75rem; color: var(--muted); }
    .filmstrip img { display: block; max-width: 120px; max-height: 160px; width: auto; height: auto; object-fit: contain; }
    .filmstrip .strip { margin: .4rem 0; display: inline-block; max-width: 100%; }
    .filmstrip .strip img { max-width: 100%; max-height: 240px; }
    .filmstrip .strip ol { display: grid; grid-auto-flow: column; grid-auto-columns: 1fr; gap: 0; margin: 0; font-size: .7rem; text-align: center; }
    .change h3 { margin-bottom: .2rem; }
    .change.visual h3 { color: var(--bad); }
    .change.identical h3, .change.re-encoded h3 { color: var(--good); }
    .ssim-curve { width: 100%; max-width: 600px; height: 120px; background: var(--card); border: 1px solid var(--line); }
    .ssim-curve .ssim { fill: none; stroke: var(--accent); stroke-width: 2; }
    .ssim-curve .threshold { stroke: var(--warn); stroke-dasharray: 4 4; }
    .worst, .compare { display: flex; flex-wrap: wrap; gap: .75rem; }
    .compare[data-mode="slider"], .compare[data-mode="flip"], .compare[data-mode="flip-before"] { display: grid; }
    .compare[data-mode="slider"] figure, .compare[data-mode^="flip"] figure { grid-area: 1 / 1; }
    .compare[data-mode="flip"] .before, .compare[data-mode="flip-before"] .after { visibility: hidden; }
    .compare-controls { display: flex; flex-wrap: wrap; gap: .35rem; align-items: center; margin: .5rem 0; }
    .help { position: fixed; right: 1rem; bottom: 1rem; background: var(--card); border: 1px solid var(--line); padding: .5rem 1rem; z-index: 3; }
    .help dt { font-weight: bold; float: left; width: 4rem; }
    footer { margin-top: 2rem; color: var(--muted); font-size: .8rem; }
    @media (max-width: 600px) { body { padding: .5rem; } .cards { grid-template-columns: repeat(2, 1fr); } .filters { position: static; } }
    @media (max-width: 600px) {
      .outputs, .outputs tbody, .outputs tr, .outputs td { display: block; }
      .outputs tr:first-child { display: none; }
      .outputs tr { border-top: 1px solid var(--line); padding: .25rem 0; }
      .outputs td { border: 0; padding: .05rem 0; min-width: 0; }
      .outputs td:nth-child(-n+3) { display: inline-block; margin-right: .75rem; }
      .outputs code { font-size: .75rem; }
    }
    @media (prefers-reduced-motion: reduce) { * { scroll-behavior: auto !important; transition: none !important; } }

    """#
}
