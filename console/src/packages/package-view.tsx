import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { asProblem, Problem, type Api } from '../api/client.js';
import { isPackageTarget, targetFromInput } from '../explorer/target-input.js';
import { plural } from '../ui/format.js';
import { ProblemBox } from '../ui/problem-box.js';
import { ChangelogEntries, day, Link, VulnerabilityTable } from './parts.js';
import { changelogUrl, packageUrl, type ChangelogResponse, type PackageRelease, type PackageResponse } from './types.js';
import { UpgradeReviewView } from './upgrade-review-view.js';
import { StackTable } from '../ui/stack-table.js';

/** What the registry says of the version's standing: deprecated, yanked (or unlisted, retired), retracted. */
function standing(release: PackageRelease): { word: string; reason: string | null }[] {
  const out: { word: string; reason: string | null }[] = [];
  if (release.deprecated) out.push({ word: 'deprecated', reason: release.deprecated_reason });
  if (release.yanked) out.push({ word: release.yanked_as ?? 'yanked', reason: release.yanked_reason });
  if (release.retracted) out.push({ word: 'retracted', reason: release.retracted_reason });
  return out;
}

export interface PackageViewProps {
  readonly api: Api;
  /** A target to open (from an SBOM component or the explorer); cleared with `onOpened`. */
  readonly open: string | null;
  readonly onOpened: () => void;
  /** Browse the target's files in the explorer. */
  readonly onFiles: (target: string) => void;
  /** Whether the view is shown: its notices are cleared when it is left. */
  readonly active: boolean;
}

/** A package version: registry facts, dependencies, vulnerabilities, versions, changelog, and the upgrade review. */
export function PackageView({ api, open, onOpened, onFiles, active }: PackageViewProps): JSX.Element {
  const [targetText, setTargetText] = useState('');
  const [target, setTarget] = useState<string | null>(null);
  const [info, setInfo] = useState<PackageResponse | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [changelog, setChangelog] = useState<ChangelogResponse | null>(null);
  const [changelogBusy, setChangelogBusy] = useState(false);
  const [changelogProblem, setChangelogProblem] = useState<Problem | null>(null);
  const [review, setReview] = useState<{ from: string; to: string } | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const changelogRef = useRef<HTMLElement>(null);

  useEffect(() => {
    if (open === null) return;
    setTargetText(open);
    setTarget(open);
    onOpened();
  }, [open, onOpened]);

  useEffect(() => {
    if (!active) {
      setProblem(null);
      setChangelogProblem(null);
    }
  }, [active]);

  useEffect(() => {
    setInfo(null);
    setChangelog(null);
    setChangelogProblem(null);
    setReview(null);
    setProblem(null);
    if (target === null) return;
    const controller = new AbortController();
    setBusy(true);
    api
      .json<PackageResponse>(packageUrl(target), { signal: controller.signal })
      .then((answer) => setInfo(answer))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setProblem(asProblem(error));
      })
      .finally(() => {
        if (!controller.signal.aborted) setBusy(false);
      });
    return () => controller.abort();
  }, [api, target]);

  useEffect(() => {
    if (info !== null) heading.current?.scrollIntoView({ block: 'nearest' });
  }, [info]);

  const inspect = (event: Event): void => {
    event.preventDefault();
    const text = targetFromInput(targetText);
    setTargetText(text);
    if (!isPackageTarget(text)) {
      setTarget(null);
      setProblem(new Problem({ title: 'Not a package target', detail: 'Enter a package target such as npm:express@4.17.1 (a registry, the package name and optionally a version).', code: null }));
      return;
    }
    setTarget(text);
  };

  const loadChangelog = (canonical: string): void => {
    setChangelogBusy(true);
    setChangelogProblem(null);
    api
      .json<ChangelogResponse>(changelogUrl(canonical, null, null))
      .then((answer) => {
        setChangelog(answer);
        requestAnimationFrame(() => changelogRef.current?.scrollIntoView({ block: 'start' }));
      })
      .catch((error: unknown) => setChangelogProblem(asProblem(error)))
      .finally(() => setChangelogBusy(false));
  };

  const release = info?.release ?? null;
  const versions = info?.versions ?? [];
  const current = release?.version ?? null;
  const currentIndex = versions.findIndex((v) => v.version === current);
  return (
    <section aria-labelledby="package-heading">
      <h2 id="package-heading">Package</h2>
      <form class="explorer-form" onSubmit={inspect} data-testid="package-form">
        <label for="package-target">Package target</label>
        <input id="package-target" data-testid="package-target" value={targetText} onInput={(e) => setTargetText(e.currentTarget.value)} placeholder="npm:express@4.17.1" spellcheck={false} autocomplete="off" aria-describedby="package-hint" />
        <p id="package-hint" class="hint">
          <code>npm:express@4.17.1</code>, <code>pypi:requests</code>, <code>crates:serde@1.0.197</code>… (no version: the latest).
        </p>
        <p>
          <button type="submit" data-testid="package-submit" disabled={busy}>
            Inspect
          </button>
        </p>
      </form>
      <ProblemBox problem={problem} idPrefix="package-error" />
      {busy ? (
        <p role="status" class="hint" data-testid="package-loading">
          Reading <code>{target}</code> from its registry…
        </p>
      ) : null}
      {info !== null ? (
        <article class="package" data-testid="package-page" data-target={info.canonical_target}>
          <h3 id="package-title" ref={heading} tabIndex={-1}>
            <span class="name" data-testid="package-name">
              {info.package_name}
            </span>{' '}
            <span class="version">{current ?? info.requested_version ?? ''}</span>
          </h3>
          <p class="actions">
            <button type="button" class="secondary" onClick={() => onFiles(info.canonical_target)} data-testid="package-files">
              Browse its files
            </button>
            <button type="button" class="secondary" disabled={changelogBusy} onClick={() => loadChangelog(info.canonical_target)} data-testid="package-changelog">
              Changelog of {current ?? 'this version'}
            </button>
          </p>
          {release !== null ? (
            <>
              {standing(release).map((s) => (
                <p key={s.word} class="problem standing" data-testid={`standing-${s.word}`}>
                  <strong>This version is {s.word}</strong>
                  {s.reason !== null ? `: ${s.reason}` : '.'}
                </p>
              ))}
              <dl class="facts" data-testid="release-facts">
                <dt>Version</dt>
                <dd data-testid="fact-version">{release.version}</dd>
                <dt>Published</dt>
                <dd>{day(release.published_at)}</dd>
                <dt>Latest</dt>
                <dd data-testid="fact-latest">
                  {release.latest_version ?? 'unknown'}
                  {release.latest_published_at !== null ? <span class="hint"> ({day(release.latest_published_at)})</span> : null}
                  <span class="hint"> · {plural(release.versions_count, 'version')}</span>
                </dd>
                <dt>Status</dt>
                <dd data-testid="fact-status">{standing(release).map((s) => s.word).join(', ') || 'not deprecated, yanked or retracted'}</dd>
                <dt>License</dt>
                <dd data-testid="fact-license">{release.license !== null ? <code>{release.license}</code> : <span class="hint">not stated</span>}</dd>
                <dt>Supplier</dt>
                <dd>{release.supplier ?? <span class="hint">not stated</span>}</dd>
                <dt>Description</dt>
                <dd>{release.description ?? <span class="hint">none</span>}</dd>
                <dt>Homepage</dt>
                <dd>
                  <Link url={release.homepage} />
                </dd>
                <dt>Repository</dt>
                <dd>
                  <Link url={release.repository_url} />
                </dd>
                <dt>Install scripts</dt>
                <dd data-testid="fact-install-scripts">
                  {release.install_scripts === null ? (
                    <span class="hint">none in this ecosystem</span>
                  ) : Object.keys(release.install_scripts).length === 0 ? (
                    'none'
                  ) : (
                    <ul class="plain">
                      {Object.entries(release.install_scripts).map(([name, command]) => (
                        <li key={name}>
                          <strong>{name}</strong>: <code>{command}</code>
                        </li>
                      ))}
                    </ul>
                  )}
                </dd>
                <dt>Fetched</dt>
                <dd>{info.fetched_at}</dd>
              </dl>
            </>
          ) : null}
          {info.dependencies !== undefined ? (
            <>
              <h4>Declared dependencies ({info.dependencies.length.toLocaleString('en')}{info.dependencies_truncated === true ? ', list cut short' : ''})</h4>
              {info.dependencies.length === 0 ? (
                <p class="hint">None declared.</p>
              ) : (
                <StackTable testId="dependencies-table" caption="Declared dependencies" columns={['Name', 'Requirement', 'Kind', 'Optional']}>
                  {info.dependencies.map((d) => (
                    <tr key={`${d.kind}:${d.name}`} data-name={d.name}>
                      <td data-label="Name">
                        <span class="name">{d.name}</span>
                      </td>
                      <td data-label="Requirement">{d.requirement !== null ? <code>{d.requirement}</code> : <span class="hint">any</span>}</td>
                      <td data-label="Kind">{d.kind}</td>
                      <td data-label="Optional">{d.optional ? 'yes' : 'no'}</td>
                    </tr>
                  ))}
                </StackTable>
              )}
            </>
          ) : null}
          {info.vulnerabilities !== undefined ? (
            <>
              <h4>Vulnerabilities ({info.vulnerabilities.length.toLocaleString('en')})</h4>
              {info.vulnerabilities_note ? <p class="hint" data-testid="vulnerabilities-note">{info.vulnerabilities_note}</p> : null}
              {info.vulnerabilities.length === 0 ? (
                <p class="hint">No matched advisory.</p>
              ) : (
                <VulnerabilityTable items={info.vulnerabilities} label="vulnerabilities" />
              )}
            </>
          ) : null}
          {versions.length > 0 ? (
            <>
              <h4>Recent versions{info.versions_truncated === true ? ` (the newest ${versions.length})` : ''}</h4>
              <StackTable testId="versions-table" caption="Recent versions, newest first" columns={['Version', 'Published', 'Status', 'Review']}>
                {versions.map((v, i) => {
                  const newer = currentIndex >= 0 && i < currentIndex;
                  const pair = newer ? { from: current ?? '', to: v.version } : { from: v.version, to: current ?? '' };
                  return (
                    <tr key={v.version} data-version={v.version} class={v.version === current ? 'current' : undefined}>
                      <td data-label="Version">
                        <span class="name">{v.version}</span>
                        {v.version === current ? <span class="hint"> (this one)</span> : null}
                      </td>
                      <td data-label="Published">{day(v.published_at)}</td>
                      <td data-label="Status">{[v.deprecated ? 'deprecated' : '', v.yanked ? 'yanked' : ''].filter((w) => w !== '').join(', ') || '—'}</td>
                      <td data-label="Review">
                        {v.version !== current && current !== null ? (
                          <button type="button" class="link" onClick={() => setReview(pair)} aria-label={`Review the upgrade from ${pair.from} to ${pair.to}`}>
                            {pair.from} → {pair.to}
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </StackTable>
              <ReviewPicker current={current} onReview={(to) => current !== null && setReview({ from: current, to })} />
            </>
          ) : null}
          <ProblemBox problem={changelogProblem} idPrefix="changelog-error" />
          {changelog !== null ? (
            <section ref={changelogRef} aria-labelledby="changelog-heading" data-testid="package-changelog-view">
              <h4 id="changelog-heading" tabIndex={-1}>
                Changelog {changelog.from !== null ? `after ${changelog.from} ` : ''}up to {changelog.to}
              </h4>
              <p class="hint" data-testid="changelog-coverage">
                {changelog.file !== null ? (
                  <>
                    From <code>{changelog.file.path}</code>.{' '}
                  </>
                ) : null}
                Coverage: {changelog.coverage.state}
                {changelog.coverage.reason !== null ? ` (${changelog.coverage.reason})` : ''}
                {changelog.coverage.versions_without_entry.length > 0 ? `; no entry for ${changelog.coverage.versions_without_entry.join(', ')}` : ''}.
              </p>
              <ChangelogEntries entries={changelog.entries} />
            </section>
          ) : null}
          {review !== null ? (
            <UpgradeReviewView api={api} target={`${info.registry}:${info.package_name}@${review.from}`} to={review.to} active={active} onFiles={onFiles} />
          ) : null}
        </article>
      ) : null}
    </section>
  );
}

function ReviewPicker({ current, onReview }: { current: string | null; onReview: (to: string) => void }): JSX.Element | null {
  const [to, setTo] = useState('');
  if (current === null) return null;
  return (
    <form
      class="toolbar review-picker"
      onSubmit={(e) => {
        e.preventDefault();
        if (to.trim() !== '') onReview(to.trim());
      }}
    >
      <label for="review-to">Review the upgrade from {current} to</label>
      <input id="review-to" data-testid="review-to" value={to} onInput={(e) => setTo(e.currentTarget.value)} placeholder="a version" spellcheck={false} autocomplete="off" />
      <button type="submit" class="secondary">
        Review
      </button>
    </form>
  );
}
