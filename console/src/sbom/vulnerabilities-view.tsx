import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { pathsTo } from './analysis.js';
import { safeHref } from './component-detail.js';
import type { Sbom } from './document.js';
import { filterVulnerabilities, fixFor, SEVERITIES, severityCounts, type Severity, type Vulnerability } from './vulnerabilities.js';

/** Rows drawn at once: a document may list thousands of advisories; the filter narrows them. */
const SHOWN = 200;

function label(sbom: Sbom, ref: string): string {
  const c = sbom.byRef.get(ref);
  return c ? `${c.name}${c.version ? `@${c.version}` : ''}` : ref;
}

/** A detail's first line, shortened, for an advisory without a summary (PyPA's have none). */
function headline(detail: string | null): string {
  const line = detail?.split('\n')[0] ?? '';
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}

export function SeverityBadge({ severity }: { severity: Severity }): JSX.Element {
  return <span class={`sev sev-${severity}`}>{severity}</span>;
}

/** One advisory opened: what it is, what it affects, how each affected component is reached, and its fix. */
function VulnerabilityDetail({ sbom, v, onSelect }: { sbom: Sbom; v: Vulnerability; onSelect: (ref: string) => void }): JSX.Element {
  const href = v.url === null ? null : safeHref(v.url);
  return (
    <div class="vuln-detail" data-testid="vulnerability-detail">
      {v.aliases.length > 0 ? <p class="hint">Also known as {v.aliases.join(', ')}.</p> : null}
      {v.detail !== null ? <p class="vuln-text">{v.detail}</p> : null}
      <dl class="facts">
        {v.score !== null ? (
          <>
            <dt>Score</dt>
            <dd>
              {v.score.toFixed(1)} {v.method ? <span class="hint">({v.method})</span> : null}
            </dd>
          </>
        ) : null}
        {v.cwes.length > 0 ? (
          <>
            <dt>Weaknesses</dt>
            <dd>{v.cwes.map((n) => `CWE-${n}`).join(', ')}</dd>
          </>
        ) : null}
        {v.published !== null ? (
          <>
            <dt>Published</dt>
            <dd>{v.published}</dd>
          </>
        ) : null}
        <dt>Advisory</dt>
        <dd>
          {href === null ? (
            <code>{v.id}</code>
          ) : (
            <a href={href} rel="noreferrer noopener" target="_blank">
              {v.url}
            </a>
          )}
        </dd>
      </dl>
      <h5>Affected components, and what they are affected through</h5>
      <ul class="paths" data-testid="affected-components">
        {v.affects.map((a) => {
          const component = sbom.byRef.get(a.ref);
          const paths = pathsTo(sbom, a.ref, 3);
          const fix = component ? fixFor(v, component.name, component.version) : v.recommendation;
          return (
            <li key={a.ref} data-ref={a.ref} data-testid="affected-component">
              <button type="button" class="link" onClick={() => onSelect(a.ref)}>
                {label(sbom, a.ref)}
              </button>
              {' — '}
              <span data-testid="fix">{fix ?? 'no fixed version is published'}</span>
              {paths.map((path) => (
                <ol key={path.join('>')} class="path" data-testid="affected-through" aria-label={`Affected through: ${path.map((r) => label(sbom, r)).join(' then ')}`}>
                  {path.map((ref) => (
                    <li key={ref} data-ref={ref}>
                      {label(sbom, ref)}
                    </li>
                  ))}
                </ol>
              ))}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/**
 * The document's vulnerabilities: counts by severity (each a filter), a text filter, and each
 * advisory with its fix and the paths through which it reaches the project.
 */
export function VulnerabilitiesView({ sbom, vulnerabilities, onSelect }: { sbom: Sbom; vulnerabilities: readonly Vulnerability[]; onSelect: (ref: string) => void }): JSX.Element {
  const [severities, setSeverities] = useState<ReadonlySet<Severity>>(new Set(SEVERITIES));
  const [text, setText] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => {
    setSeverities(new Set(SEVERITIES));
    setText('');
    setOpen(null);
  }, [vulnerabilities]);
  const counts = useMemo(() => severityCounts(vulnerabilities), [vulnerabilities]);
  const shown = useMemo(() => filterVulnerabilities(vulnerabilities, severities, text, (ref) => sbom.byRef.get(ref)?.name ?? ref), [vulnerabilities, severities, text, sbom]);
  const snapshots = sbom.evidence.advisories;
  const toggle = (s: Severity): void => {
    const next = new Set(severities);
    if (next.has(s)) next.delete(s);
    else next.add(s);
    setSeverities(next);
  };
  return (
    <section aria-labelledby="vulnerabilities-heading" data-testid="vulnerabilities">
      <h3 id="vulnerabilities-heading">Vulnerabilities</h3>
      {snapshots.length > 0 ? (
        <p class="hint" data-testid="advisory-snapshot">
          Matched against{' '}
          {snapshots
            .map((s) => `${s.ecosystem}: ${s.advisories === null ? '?' : s.advisories.toLocaleString('en')} advisories${s.modifiedMax && Date.parse(s.modifiedMax) >= 0 ? `, newest ${s.modifiedMax.slice(0, 10)}` : ''}${s.syncedAt ? `, synced ${new Date(s.syncedAt).toLocaleString()}` : ''}`)
            .join('; ')}
          .
        </p>
      ) : null}
      {vulnerabilities.length === 0 ? (
        <p data-testid="no-vulnerabilities">No known vulnerability affects these components.</p>
      ) : (
        <>
          <fieldset class="severity-filter">
            <legend>Severity ({vulnerabilities.length.toLocaleString('en')} advisories)</legend>
            {SEVERITIES.filter((s) => counts[s] > 0).map((s) => (
              <label key={s} class="inline">
                <input type="checkbox" data-testid={`severity-${s}`} checked={severities.has(s)} onChange={() => toggle(s)} />
                <SeverityBadge severity={s} />
                <span data-testid={`severity-count-${s}`} data-count={counts[s]}>
                  {counts[s].toLocaleString('en')}
                </span>
              </label>
            ))}
          </fieldset>
          <div class="toolbar">
            <label for="vulnerability-filter">Filter vulnerabilities</label>
            <input id="vulnerability-filter" data-testid="vulnerability-filter" type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder="id, alias, summary, package…" />
            <span role="status" data-testid="vulnerability-count" data-count={shown.length}>
              {shown.length.toLocaleString('en')} of {vulnerabilities.length.toLocaleString('en')} shown
            </span>
          </div>
          <ul class="vulns" data-testid="vulnerability-list">
            {shown.slice(0, SHOWN).map((v) => {
              const expanded = open === v.id;
              return (
                <li key={v.id} data-testid="vulnerability" data-id={v.id} data-severity={v.severity}>
                  <button type="button" class="link vuln-head" aria-expanded={expanded} onClick={() => setOpen(expanded ? null : v.id)}>
                    <SeverityBadge severity={v.severity} /> <strong>{v.id}</strong>
                    {v.score !== null ? ` ${v.score.toFixed(1)}` : ''} {v.summary ?? headline(v.detail)}
                  </button>
                  <span class="hint"> in {v.affects.map((a) => label(sbom, a.ref)).join(', ')}</span>
                  {expanded ? <VulnerabilityDetail sbom={sbom} v={v} onSelect={onSelect} /> : null}
                </li>
              );
            })}
          </ul>
          {shown.length > SHOWN ? <p class="hint">The first {SHOWN} are listed; narrow the filter to see the others.</p> : null}
        </>
      )}
    </section>
  );
}
