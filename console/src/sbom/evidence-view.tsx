import type { JSX } from 'preact';
import { BASIS_WORDS, COMPLETENESS_WORDS, type Evidence } from './document.js';

const OUTCOME_WORDS: Readonly<Record<string, string>> = {
  lockfile: 'read from its lockfile',
  resolved: 'resolved against the registry',
  resolution_failed: 'could not be resolved',
  resolution_timeout: 'took too long to resolve',
  unparsable: 'could not be read',
};

/** What the document says of its own completeness, in plain words. */
export function EvidenceView({ evidence }: { evidence: Evidence }): JSX.Element {
  const missing = evidence.declarations.filter((d) => !d.provided);
  const provided = evidence.declarations.filter((d) => d.provided);
  const completeness = evidence.completeness;
  return (
    <section class="evidence" aria-labelledby="evidence-heading" data-testid="evidence">
      <h3 id="evidence-heading">How complete is it</h3>
      {completeness === null ? (
        <p>The document carries no completeness evidence (it was not made by this service).</p>
      ) : (
        <p data-testid="completeness" data-value={completeness}>
          <strong>{COMPLETENESS_WORDS[completeness] ?? completeness}</strong>
          {evidence.basis !== null ? ` Components were ${BASIS_WORDS[evidence.basis] ?? evidence.basis}.` : ''}
          {evidence.aggregate === 'complete' ? ' Every dependency edge is known.' : evidence.aggregate === 'incomplete' ? ' Some dependency edges may be missing.' : ''}
        </p>
      )}
      {evidence.notice !== null ? <p data-testid="notice">{evidence.notice}</p> : null}
      {evidence.resolutions.length > 0 ? (
        <ul>
          {evidence.resolutions.map((r) => (
            <li key={r.manifest}>
              <code>{r.manifest}</code> {OUTCOME_WORDS[r.outcome] ?? r.outcome}
              {r.detail !== null ? `: ${r.detail}` : ''}
            </li>
          ))}
        </ul>
      ) : null}
      {evidence.lockfiles.length > 0 ? (
        <p>
          Lockfiles read:{' '}
          {evidence.lockfiles.map((l, i) => (
            <span key={l.path}>
              {i > 0 ? ', ' : ''}
              <code>{l.path}</code> ({l.kind}
              {l.version !== null ? ` v${l.version}` : ''}
              {l.entries !== null ? `, ${l.entries.toLocaleString('en')} entries` : ''})
            </span>
          ))}
          .
        </p>
      ) : null}
      {missing.length > 0 ? (
        <details data-testid="unresolved">
          <summary>{missing.length.toLocaleString('en')} declared requirement(s) did not become components</summary>
          <ul>
            {missing.map((d, i) => (
              <li key={i}>
                <code>{d.name}</code> {d.range ? <code>{d.range}</code> : null} ({d.kind} in <code>{d.manifest}</code>)
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {provided.length > 0 ? (
        <p class="hint">
          {provided.length} requirement(s) are provided by the platform or SDK, not packages: {provided.map((d) => d.name).join(', ')}.
        </p>
      ) : null}
    </section>
  );
}
