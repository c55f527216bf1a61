import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { GrepMatch, GrepRequest, GrepResponse } from '../api/types.js';
import type { FileRef } from '../explorer/file-view.js';
import { ProblemBox } from '../ui/problem-box.js';
import { targetFromInput } from '../explorer/target-input.js';
import { usePagedQuery, WAIT_MS } from './paged-query.js';

function MatchLine({ match }: { match: GrepMatch }) {
  // Columns are 1-based UTF-16 units of the whole line; `line` may start later (a cut long line).
  const start = Math.max(0, match.column_start - match.line_column);
  const end = Math.max(start, match.column_end - match.line_column);
  return (
    <>
      {match.line.slice(0, start)}
      <mark>{match.line.slice(start, end)}</mark>
      {match.line.slice(end)}
    </>
  );
}

/** `POST /v1/grep`: exact text or an RE2 expression across a package, repository or site. */
export function GrepView({ api, onOpen, active = true }: { api: Api; onOpen: (file: FileRef) => void; active?: boolean }): JSX.Element {
  const [target, setTarget] = useState('');
  const [pattern, setPattern] = useState('');
  const [paths, setPaths] = useState('');
  const [regex, setRegex] = useState(false);
  const [caseSensitive, setCaseSensitive] = useState(true);
  const [context, setContext] = useState(0);
  const { result, problem, busy, start, more, clearProblem } = usePagedQuery<GrepRequest, GrepResponse>(api, '/v1/grep');

  useEffect(() => {
    if (!active) clearProblem();
  }, [active]);

  const submit = (event: Event): void => {
    event.preventDefault();
    const request: GrepRequest = { target: targetFromInput(target), pattern, regex, case_sensitive: caseSensitive, context_lines: context, limit: 100, wait_timeout_ms: WAIT_MS };
    const selectors = paths.split(/[\s,]+/).filter((p) => p !== '');
    if (selectors.length > 0) request.paths = selectors;
    start(request);
  };

  const matches = result?.pages.flatMap((p) => p.matches) ?? [];
  const last = result?.pages.at(-1) ?? null;
  return (
    <section aria-labelledby="grep-heading">
      <h2 id="grep-heading">Search the code</h2>
      <form onSubmit={submit} class="grid-form">
        <label for="grep-target">Target to search</label>
        <input id="grep-target" value={target} onInput={(e) => setTarget(e.currentTarget.value)} placeholder="npm:react@18.3.1" spellcheck={false} required />
        <label for="grep-pattern">Pattern</label>
        <input id="grep-pattern" value={pattern} onInput={(e) => setPattern(e.currentTarget.value)} spellcheck={false} required />
        <label for="grep-paths">Only these paths (optional)</label>
        <input id="grep-paths" value={paths} onInput={(e) => setPaths(e.currentTarget.value)} placeholder="src, lib/**/*.js" spellcheck={false} />
        <label for="grep-context">Context lines</label>
        <input id="grep-context" type="number" min={0} max={10} value={context} onInput={(e) => setContext(Number(e.currentTarget.value) || 0)} />
        <span />
        <div>
          <label class="inline">
            <input type="checkbox" checked={regex} onChange={(e) => setRegex(e.currentTarget.checked)} /> Regular expression (RE2)
          </label>
          <label class="inline">
            <input type="checkbox" checked={caseSensitive} onChange={(e) => setCaseSensitive(e.currentTarget.checked)} /> Match case
          </label>
        </div>
        <span />
        <p>
          <button type="submit" disabled={busy}>
            Search
          </button>
        </p>
      </form>
      <ProblemBox problem={problem} idPrefix="grep-error" />
      {busy && result === null ? <p role="status">Searching…</p> : null}
      {result !== null && last !== null ? (
        <div data-testid="grep-results">
          <p role="status">
            {matches.length.toLocaleString('en')} match{matches.length === 1 ? '' : 'es'} in {last.canonical_target}
            {last.has_more ? ' so far' : ''}
            {last.stopped_at !== null ? ` (this page stopped at its ${last.stopped_at.replace('_', ' ')} bound)` : ''}.
          </p>
          <ol class="matches">
            {matches.map((m, i) => (
              <li key={i}>
                <button type="button" class="link" onClick={() => onOpen({ target: m.read.target, path: m.read.path, line: m.line_number })} aria-label={`Open ${m.path} at line ${m.line_number}`}>
                  {m.path}:{m.line_number}
                </button>
                <pre class="match">
                  {m.before.map((c) => `${String(c.line_number).padStart(5)}  ${c.text}\n`).join('')}
                  <span class="match-line">
                    {String(m.line_number).padStart(5)}  <MatchLine match={m} />
                    {'\n'}
                  </span>
                  {m.after.map((c) => `${String(c.line_number).padStart(5)}  ${c.text}\n`).join('')}
                </pre>
              </li>
            ))}
          </ol>
          {last.has_more && last.next_cursor !== null ? (
            <p>
              <button type="button" class="secondary" disabled={busy} onClick={more}>
                More matches
              </button>
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
