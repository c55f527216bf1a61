import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { CompareChange, CompareRequest, CompareResponse, DiffResponse } from '../api/types.js';
import { ProblemBox } from '../ui/problem-box.js';
import { targetFromInput } from '../explorer/target-input.js';
import { usePagedQuery, WAIT_MS } from './paged-query.js';
import { StackTable } from '../ui/stack-table.js';

function diffClass(line: string): string {
  if (line.startsWith('@@')) return 'diff-hunk';
  if (line.startsWith('+++') || line.startsWith('---')) return 'diff-file';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-del';
  return 'diff-same';
}

function Diff({ diff }: { diff: DiffResponse }) {
  if (diff.binary) return <p>Binary on at least one side: no line diff.</p>;
  if (diff.truncated || diff.diff === null) return <p>Too large or too different to diff here.</p>;
  return (
    <pre class="diff" tabIndex={0} aria-label={`Diff of ${diff.path}`}>
      {diff.diff.split('\n').map((line, i) => (
        <span key={i} class={diffClass(line)}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** `POST /v1/experimental/compare`: the paths that changed between two versions or refs, and their diffs. */
export function CompareView({ api, active = true }: { api: Api; active?: boolean }): JSX.Element {
  const [base, setBase] = useState('');
  const [head, setHead] = useState('');
  const [diff, setDiff] = useState<DiffResponse | null>(null);
  const { result, problem, busy, start, more, guard, clearProblem } = usePagedQuery<CompareRequest, CompareResponse>(api, '/v1/experimental/compare');

  useEffect(() => {
    if (!active) clearProblem();
  }, [active]);

  const showDiff = async (change: CompareChange): Promise<void> => {
    const which = change.diff;
    if (which === null) return;
    await guard(async () => {
      const query = new URLSearchParams({ base: which.base, head: which.head, path: which.path });
      setDiff(await api.json<DiffResponse>(`/v1/experimental/compare/diff?${query.toString()}`));
    });
  };

  const changes = result?.pages.flatMap((p) => p.changes) ?? [];
  const last = result?.pages.at(-1) ?? null;
  return (
    <section aria-labelledby="compare-heading">
      <h2 id="compare-heading">Compare two versions</h2>
      <form
        class="grid-form"
        onSubmit={(e) => {
          e.preventDefault();
          setDiff(null);
          start({ base: targetFromInput(base), head: targetFromInput(head), limit: 200, wait_timeout_ms: WAIT_MS });
        }}
      >
        <label for="compare-base">Older (base)</label>
        <input id="compare-base" value={base} onInput={(e) => setBase(e.currentTarget.value)} placeholder="npm:react@18.2.0" spellcheck={false} required />
        <label for="compare-head">Newer (head)</label>
        <input id="compare-head" value={head} onInput={(e) => setHead(e.currentTarget.value)} placeholder="npm:react@18.3.1" spellcheck={false} required />
        <span />
        <p>
          <button type="submit" disabled={busy}>
            Compare
          </button>
        </p>
      </form>
      <ProblemBox problem={problem} idPrefix="compare-error" />
      {result !== null && last !== null ? (
        <div data-testid="compare-results">
          <p role="status">
            {last.base.canonical_target} → {last.head.canonical_target}: {last.summary.added} added, {last.summary.removed} removed, {last.summary.modified} modified, {last.summary.unchanged} unchanged.
          </p>
          <StackTable columns={['Path', 'Change', 'Diff']}>
            {changes.map((c) => (
              <tr key={c.path} class={`change-${c.status}`}>
                <td data-label="Path">
                  <code class="name">{c.path}</code>
                </td>
                <td data-label="Change">{c.status}</td>
                <td data-label="Diff">
                  {c.diff !== null ? (
                    <button type="button" class="link" onClick={() => void showDiff(c)} aria-label={`Show the diff of ${c.path}`}>
                      Show
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </StackTable>
          {last.has_more && last.next_cursor !== null ? (
            <p>
              <button type="button" class="secondary" disabled={busy} onClick={more}>
                More changes
              </button>
            </p>
          ) : null}
          {diff !== null ? (
            <section aria-labelledby="diff-heading">
              <h3 id="diff-heading">
                <code>{diff.path}</code> ({diff.status})
              </h3>
              <Diff diff={diff} />
            </section>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
