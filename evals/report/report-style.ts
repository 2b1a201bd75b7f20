/** The report's whole stylesheet, inline: the file makes no request of its own. */
export const reportStyle = `
:root { color-scheme: light dark; --line: #8884; --pass: #1a7f37; --fail: #cf222e; --muted: #8b949e; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; max-width: 1600px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 32px 0 8px; }
.meta, .muted { color: var(--muted); }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: var(--pass); font-weight: 600; }
.fail { color: var(--fail); font-weight: 600; }
.warning { border: 1px solid var(--fail); padding: 8px 12px; margin: 12px 0; }
section.case { border-top: 2px solid var(--line); margin-top: 28px; padding-top: 8px; }
.prompt { margin: 8px 0 12px; }
.outcomes { display: grid; gap: 12px; }
.outcome { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; min-width: 0; }
.outcome h3 { font-size: 15px; margin: 0 0 4px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; padding: 6px 8px; background: #8881; border-radius: 4px; font: 12.5px/1.4 ui-monospace, monospace; }
ol.tool-calls { padding-left: 20px; margin: 4px 0; }
table.grades { width: 100%; margin-top: 6px; }
details > summary { cursor: pointer; margin: 4px 0; }
pre.diff ins { text-decoration: none; color: var(--pass); }
pre.diff del { text-decoration: none; color: var(--fail); }
`;
