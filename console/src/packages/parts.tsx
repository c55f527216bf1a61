import type { JSX } from 'preact';
import { Markdown } from '../explorer/markdown.js';
import { safeHref } from '../sbom/component-detail.js';
import type { ChangelogResponse, PackageVulnerability } from './types.js';
import { StackTable } from '../ui/stack-table.js';

/** Pieces the package page and the upgrade review share. */

export function day(iso: string | null): JSX.Element | string {
  if (iso === null) return 'unknown';
  return <time datetime={iso}>{iso.slice(0, 10)}</time>;
}

export function Link({ url }: { url: string | null }): JSX.Element {
  if (url === null) return <span class="hint">none stated</span>;
  const href = safeHref(url);
  return href === null ? (
    <code class="token-long">{url}</code>
  ) : (
    <a class="token-long" href={href} rel="noreferrer noopener" target="_blank">
      {url}
    </a>
  );
}

export function VulnerabilityTable({ items, label }: { items: readonly PackageVulnerability[]; label: string }): JSX.Element {
  return (
    <StackTable testId={`${label}-table`} caption={label} columns={['Advisory', 'Severity', 'Summary', 'Fixed in']}>
      {items.map((v) => {
        const href = safeHref(v.url);
        return (
          <tr key={v.id} data-id={v.id}>
            <td data-label="Advisory">
              {href === null ? <code>{v.id}</code> : <a href={href} rel="noreferrer noopener" target="_blank">{v.id}</a>}
              {v.aliases.length > 0 ? <span class="hint"> ({v.aliases.join(', ')})</span> : null}
            </td>
            <td data-label="Severity">
              <span class={`sev sev-${v.severity}`}>{v.severity}</span>
            </td>
            <td data-label="Summary">{v.summary ?? <span class="hint">no summary</span>}</td>
            <td data-label="Fixed in">{v.fixed_versions.length > 0 ? v.fixed_versions.join(', ') : <span class="hint">no fix published</span>}</td>
          </tr>
        );
      })}
    </StackTable>
  );
}

export function ChangelogEntries({ entries }: { entries: ChangelogResponse['entries'] }): JSX.Element {
  return (
    <ol class="changelog" data-testid="changelog-entries">
      {entries.map((e) => (
        <li key={e.version} data-version={e.version}>
          <h5>
            <span class="name">{e.version}</span>
            {e.date !== null ? <span class="hint"> · {e.date}</span> : null}
            {e.breaking ? <span class="sev sev-high"> breaking</span> : null}
          </h5>
          <Markdown text={e.text} />
        </li>
      ))}
    </ol>
  );
}

