import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { asProblem, type Api, type Problem } from '../api/client.js';
import { formatBytes, plural } from '../ui/format.js';
import { ProblemBox } from '../ui/problem-box.js';
import { ChangelogEntries, day, VulnerabilityTable } from './parts.js';
import type { UpgradeReviewResponse } from './types.js';
import { StackTable } from '../ui/stack-table.js';

/** How long one review call may wait for both versions' files; the console asks again a few times. */
const FILES_WAIT_MS = 15_000;
const FILES_ATTEMPTS = 4;

const BREAKING_WORDS = { major_bump: 'Major version bump', changelog: 'The changelog says BREAKING', removed_export: 'Removed export' } as const;

function totals(t: { count: number; bytes: number } | undefined): string {
  return t === undefined ? '—' : `${plural(t.count, 'file')}, ${formatBytes(t.bytes)}`;
}

type ScriptRow = { name: string; change: 'added' | 'removed' | 'changed'; from: string | null; to: string | null };

function scriptRows(scripts: NonNullable<UpgradeReviewResponse['install_scripts']>): ScriptRow[] {
  return [
    ...Object.entries(scripts.added).map(([name, to]): ScriptRow => ({ name, change: 'added', from: null, to })),
    ...Object.entries(scripts.removed).map(([name, from]): ScriptRow => ({ name, change: 'removed', from, to: null })),
    ...Object.entries(scripts.changed).map(([name, c]): ScriptRow => ({ name, change: 'changed', from: c.from, to: c.to })),
  ];
}

type DependencyRow = { name: string; kind: string; change: 'added' | 'removed' | 'changed'; from: string | null; to: string | null };

function dependencyRows(d: UpgradeReviewResponse['dependencies']): DependencyRow[] {
  return [
    ...d.added.map((x): DependencyRow => ({ name: x.name, kind: x.kind, change: 'added', from: null, to: x.requirement })),
    ...d.removed.map((x): DependencyRow => ({ name: x.name, kind: x.kind, change: 'removed', from: x.requirement, to: null })),
    ...d.changed.map((x): DependencyRow => ({ name: x.name, kind: x.kind, change: 'changed', from: x.from, to: x.to })),
  ];
}

/** `POST /v1/packages/upgrade-review` shown side by side: what changes from one version to the other. */
export function UpgradeReviewView({ api, target, to, active, onFiles }: { api: Api; target: string; to: string; active: boolean; onFiles: (target: string) => void }): JSX.Element {
  const [review, setReview] = useState<UpgradeReviewResponse | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [waitingFiles, setWaitingFiles] = useState(false);
  const section = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!active) setProblem(null);
  }, [active]);

  useEffect(() => {
    const controller = new AbortController();
    setReview(null);
    setProblem(null);
    setBusy(true);
    setWaitingFiles(false);
    const run = async (): Promise<void> => {
      // The registry facts at once; then, while the files are being prepared, ask again with a wait.
      for (let attempt = 0; attempt <= FILES_ATTEMPTS; attempt += 1) {
        const body = { target, to, ...(attempt > 0 ? { wait_timeout_ms: FILES_WAIT_MS } : {}) };
        const answer = await api.json<UpgradeReviewResponse>('/v1/packages/upgrade-review', { method: 'POST', body, signal: controller.signal });
        if (controller.signal.aborted) return;
        setReview(answer);
        setBusy(false);
        if (answer.files !== null) break;
        setWaitingFiles(attempt < FILES_ATTEMPTS);
      }
    };
    run()
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setProblem(asProblem(error));
      })
      .finally(() => {
        if (!controller.signal.aborted) {
          setBusy(false);
          setWaitingFiles(false);
        }
      });
    return () => controller.abort();
  }, [api, target, to]);

  useEffect(() => {
    section.current?.scrollIntoView({ block: 'start' });
  }, [target, to]);

  const r = review;
  const scripts = r?.install_scripts ? scriptRows(r.install_scripts) : [];
  const dependencies = r ? dependencyRows(r.dependencies) : [];
  return (
    <section ref={section} class="review" aria-labelledby="review-heading" data-testid="upgrade-review" data-from={r?.from.version} data-to={r?.to.version}>
      <h3 id="review-heading" tabIndex={-1}>
        Upgrade review: <span class="name">{target}</span> → <span class="name">{to}</span>
      </h3>
      <ProblemBox problem={problem} idPrefix="review-error" />
      {busy ? (
        <p role="status" class="hint" data-testid="review-loading">
          Reviewing the upgrade…
        </p>
      ) : null}
      {r !== null ? (
        <>
          <div class="sides" data-testid="review-sides">
            {(['from', 'to'] as const).map((side) => {
              const s = r[side];
              const size = r.size === null ? undefined : side === 'from' ? r.size.before : r.size.after;
              return (
                <div key={side} class={`side side-${side}`} data-testid={`review-side-${side}`}>
                  <h4>{side === 'from' ? 'From' : 'To'} <span class="name">{s.version}</span></h4>
                  <dl class="facts">
                    <dt>Target</dt>
                    <dd>
                      <button type="button" class="link" onClick={() => onFiles(s.canonical_target)} aria-label={`Browse the files of ${s.canonical_target}`}>
                        <span class="name">{s.canonical_target}</span>
                      </button>
                    </dd>
                    <dt>Published</dt>
                    <dd>{day(s.published_at)}</dd>
                    <dt>License</dt>
                    <dd>{s.license !== null ? <code>{s.license}</code> : <span class="hint">not stated</span>}</dd>
                    <dt>Archive</dt>
                    <dd data-testid={`review-size-${side}`}>{size === undefined ? <span class="hint">not prepared yet</span> : totals(size)}</dd>
                  </dl>
                </div>
              );
            })}
          </div>

          <h4>Breaking hints ({r.breaking.length})</h4>
          {r.breaking.length === 0 ? (
            <p class="hint">None found.</p>
          ) : (
            <ul data-testid="review-breaking">
              {r.breaking.map((b) => (
                <li key={`${b.kind}:${b.detail}`} data-kind={b.kind}>
                  <strong>{BREAKING_WORDS[b.kind]}</strong>: {b.detail}
                </li>
              ))}
            </ul>
          )}

          <h4>License</h4>
          <p data-testid="review-license">
            {r.license.changed ? (
              <>
                <strong>Changed</strong>: <code>{r.license.from ?? 'not stated'}</code> → <code>{r.license.to ?? 'not stated'}</code>
              </>
            ) : (
              <>Unchanged ({r.license.to ?? 'not stated'}).</>
            )}
          </p>

          <h4>Install scripts</h4>
          {r.install_scripts === null ? (
            <p class="hint">This ecosystem has no install scripts.</p>
          ) : scripts.length === 0 ? (
            <p class="hint">No install script added, removed or changed.</p>
          ) : (
            <StackTable testId="review-install-scripts" caption="Install script changes" columns={['Script', 'Change', 'From', 'To']}>
              {scripts.map((s) => (
                <tr key={s.name} data-script={s.name} data-change={s.change}>
                  <td data-label="Script"><strong>{s.name}</strong></td>
                  <td data-label="Change">{s.change}</td>
                  <td data-label="From">{s.from !== null ? <code>{s.from}</code> : '—'}</td>
                  <td data-label="To">{s.to !== null ? <code>{s.to}</code> : '—'}</td>
                </tr>
              ))}
            </StackTable>
          )}

          <h4>Vulnerabilities</h4>
          {r.vulnerabilities.note !== null ? <p class="hint">{r.vulnerabilities.note}</p> : null}
          <div class="sides pair">
            <div class="side">
              <h5>Fixed by the upgrade ({r.vulnerabilities.fixed.length})</h5>
              {r.vulnerabilities.fixed.length > 0 ? <VulnerabilityTable items={r.vulnerabilities.fixed} label="fixed" /> : <p class="hint">None.</p>}
            </div>
            <div class="side">
              <h5>Introduced by it ({r.vulnerabilities.introduced.length})</h5>
              {r.vulnerabilities.introduced.length > 0 ? <VulnerabilityTable items={r.vulnerabilities.introduced} label="introduced" /> : <p class="hint">None.</p>}
            </div>
          </div>
          {r.vulnerabilities.remaining.length > 0 ? (
            <>
              <h5>Still open after it ({r.vulnerabilities.remaining.length})</h5>
              <VulnerabilityTable items={r.vulnerabilities.remaining} label="remaining" />
            </>
          ) : null}

          <h4>Dependencies</h4>
          {dependencies.length === 0 ? (
            <p class="hint">No declared dependency added, removed or changed.</p>
          ) : (
            <StackTable testId="review-dependencies" caption="Dependency changes" columns={['Name', 'Kind', 'Change', 'From', 'To']}>
              {dependencies.map((d) => (
                <tr key={`${d.kind}:${d.name}:${d.change}`} data-name={d.name} data-change={d.change}>
                  <td data-label="Name"><span class="name">{d.name}</span></td>
                  <td data-label="Kind">{d.kind}</td>
                  <td data-label="Change">{d.change}</td>
                  <td data-label="From">{d.from !== null ? <code>{d.from}</code> : '—'}</td>
                  <td data-label="To">{d.to !== null ? <code>{d.to}</code> : '—'}</td>
                </tr>
              ))}
            </StackTable>
          )}

          <h4>Files</h4>
          {r.files === null ? (
            <p class="hint" data-testid="review-files-note">
              {r.files_note ?? 'Not known.'}
              {waitingFiles ? ' Waiting for them to be prepared…' : ''}
            </p>
          ) : (
            <StackTable testId="review-files" caption="File changes" columns={['Change', { label: 'Files', num: true }, { label: 'Bytes before', num: true }, { label: 'Bytes after', num: true }]}>
              <tr data-change="added">
                <td data-label="Change">added</td>
                <td data-label="Files" class="num">{r.files.added.count.toLocaleString('en')}</td>
                <td data-label="Bytes before" class="num">—</td>
                <td data-label="Bytes after" class="num">{formatBytes(r.files.added.bytes)}</td>
              </tr>
              <tr data-change="removed">
                <td data-label="Change">removed</td>
                <td data-label="Files" class="num">{r.files.removed.count.toLocaleString('en')}</td>
                <td data-label="Bytes before" class="num">{formatBytes(r.files.removed.bytes)}</td>
                <td data-label="Bytes after" class="num">—</td>
              </tr>
              <tr data-change="changed">
                <td data-label="Change">changed</td>
                <td data-label="Files" class="num">{r.files.changed.count.toLocaleString('en')}</td>
                <td data-label="Bytes before" class="num">{formatBytes(r.files.changed.bytes_before)}</td>
                <td data-label="Bytes after" class="num">{formatBytes(r.files.changed.bytes_after)}</td>
              </tr>
              <tr data-change="unchanged">
                <td data-label="Change">unchanged</td>
                <td data-label="Files" class="num">{r.files.unchanged.toLocaleString('en')}</td>
                <td data-label="Bytes before" class="num">—</td>
                <td data-label="Bytes after" class="num">—</td>
              </tr>
            </StackTable>
          )}

          <h4>Changelog in between</h4>
          <p class="hint" data-testid="review-changelog-coverage">
            Coverage: {r.changelog.coverage.state}
            {r.changelog.coverage.reason !== null ? ` (${r.changelog.coverage.reason})` : ''}
            {r.changelog.coverage.versions_without_entry.length > 0 ? `; no entry for ${r.changelog.coverage.versions_without_entry.join(', ')}` : ''}.
          </p>
          {r.changelog.entries.length > 0 ? <ChangelogEntries entries={r.changelog.entries} /> : null}
        </>
      ) : null}
    </section>
  );
}
