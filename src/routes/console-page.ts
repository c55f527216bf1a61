import { COUNT_LABELS, CONSOLE_SCRIPT, FORMATS } from './console-script.js';

/**
 * The job console: one self-contained page (no external resources) that submits a lockfile job,
 * follows its events over fetch streaming and downloads the result. Its script and style are
 * exported on their own so the route can allow exactly them, by hash, in its CSP.
 */

export const CONSOLE_STYLE = `
:root { color-scheme: light dark; --accent: #0b5cad; --bad: #b00020; --muted: #666; font-family: system-ui, sans-serif; line-height: 1.45; }
@media (prefers-color-scheme: dark) { :root { --accent: #7ab7ff; --bad: #ff8a8a; --muted: #aaa; } }
body { margin: 0 auto; max-width: 46rem; padding: 1rem 1.25rem 3rem; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; }
fieldset { border: 1px solid #8884; border-radius: 6px; margin: 0 0 1rem; padding: .75rem 1rem; }
label { display: block; font-weight: 600; margin-top: .75rem; }
label:first-of-type { margin-top: 0; }
input, select, button { font: inherit; }
input[type=password], select { box-sizing: border-box; width: 100%; padding: .4rem; }
.hint { color: var(--muted); font-size: .9rem; margin: .2rem 0 0; }
button { background: var(--accent); border: 0; border-radius: 4px; color: #fff; cursor: pointer; padding: .5rem 1rem; }
button:disabled { cursor: default; opacity: .6; }
button.secondary { background: transparent; border: 1px solid var(--accent); color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.problem { border-left: 4px solid var(--bad); padding: .5rem 1rem; margin: 1rem 0; }
.problem strong { color: var(--bad); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dt { color: var(--muted); }
dd { margin: 0; font-variant-numeric: tabular-nums; }
#phase-log time { color: var(--muted); font-size: .9rem; margin-left: .5rem; }
progress { width: 100%; }
code { overflow-wrap: anywhere; }
`;

function options(): string {
  return Object.entries(FORMATS)
    .map(([value, format]) => `<option value="${value}">${format.label}</option>`)
    .join('');
}

function countRows(): string {
  return Object.entries(COUNT_LABELS)
    .map(([name, label]) => `<dt>${label}</dt><dd data-count="${name}">\u2014</dd>`)
    .join('');
}

export const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>pkgscope job console</title>
<link rel="icon" href="data:,">
<style>${CONSOLE_STYLE}</style>
</head>
<body>
<main>
<h1>Lockfile job console</h1>
<p class="hint">Submit a lockfile analysis, follow it live and download the inventory. The token stays in this page: it is sent only in request headers and never stored.</p>
<noscript><p class="problem"><strong>This page needs JavaScript.</strong></p></noscript>
<form id="job-form" data-testid="job-form" method="post" action="#" novalidate>
<fieldset>
<legend>Credentials</legend>
<label for="token">Bearer token</label>
<input id="token" data-testid="token" type="password" autocomplete="off" spellcheck="false" aria-describedby="token-hint" required>
<p id="token-hint" class="hint">As printed by <code>pkgscope tokens create</code>.</p>
</fieldset>
<fieldset>
<legend>Files</legend>
<label for="lockfile">Lockfile</label>
<input id="lockfile" data-testid="lockfile" type="file" aria-describedby="lockfile-hint" required>
<p id="lockfile-hint" class="hint">package-lock.json, npm-shrinkwrap.json, yarn.lock, pnpm-lock.yaml or bun.lock.</p>
<label for="manifest">package.json (optional)</label>
<input id="manifest" data-testid="manifest" type="file" accept=".json,application/json">
</fieldset>
<label for="format">Output format</label>
<select id="format" data-testid="format">${options()}</select>
<p><button id="submit" data-testid="submit" type="submit">Submit job</button></p>
</form>
<div id="error" data-testid="error" class="problem" role="alert" hidden>
<p><strong id="error-title"></strong></p>
<p id="error-detail" data-testid="error-detail"></p>
<p id="error-code-row">Code: <code id="error-code" data-testid="error-code"></code></p>
<p id="error-request-row">Request id: <code id="error-request"></code></p>
</div>
<p id="progress-status" data-testid="progress-status" role="status" aria-live="polite"></p>
<section id="job" data-testid="job" aria-labelledby="job-heading" hidden>
<h2 id="job-heading">Job</h2>
<dl>
<dt>Id</dt><dd><code id="job-id" data-testid="job-id"></code></dd>
<dt>Format</dt><dd id="job-format"></dd>
<dt>State</dt><dd id="job-state" data-testid="job-state"></dd>
<dt>Phase</dt><dd id="job-phase" data-testid="job-phase"></dd>
<dt>Revision</dt><dd id="job-revision"></dd>
<dt>Attempt</dt><dd id="job-attempt"></dd>
<dt>Expires</dt><dd id="job-expires"></dd>
<dt>Events</dt><dd id="connection" data-testid="connection"></dd>
</dl>
<p><button id="reconnect" data-testid="reconnect" class="secondary" type="button" hidden>Reconnect to the events</button></p>
<h3>Phases seen</h3>
<ol id="phase-log" data-testid="phase-log"></ol>
<h3>Counts</h3>
<progress id="coordinates-progress" data-testid="coordinates-progress" aria-label="Registry lookups done" hidden></progress>
<dl id="counts" data-testid="counts">${countRows()}</dl>
<div id="result" data-testid="result" hidden>
<h3>Result</h3>
<p><button id="download" data-testid="download" type="button">Download the result</button>
<a id="save-link" data-testid="save-link" href="#" hidden></a></p>
</div>
</section>
</main>
<script type="module">${CONSOLE_SCRIPT}</script>
</body>
</html>
`;
