import type { JSX } from 'preact';
import { useMemo } from 'preact/hooks';
import { dependentsOf, pathsTo } from './analysis.js';
import { targetOfPurl } from '../explorer/target-input.js';
import type { Component, Sbom } from './document.js';
import { fixFor, type Vulnerability } from './vulnerabilities.js';

const LICENSE_KIND_WORDS = {
  expression: 'SPDX license expression',
  'spdx-id': 'SPDX license id',
  named: 'named license (not an SPDX id)',
  unknown: 'no license declared: unknown, not absent',
} as const;

export function safeHref(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

function label(sbom: Sbom, ref: string): string {
  const c = sbom.byRef.get(ref);
  return c ? `${c.name}${c.version ? `@${c.version}` : ''}` : ref;
}

/** One component: why it is there (paths from the roots), and what the document says of it. */
export interface ComponentDetailProps {
  readonly sbom: Sbom;
  readonly component: Component;
  readonly onSelect: (ref: string) => void;
  readonly vulnerabilities?: readonly Vulnerability[];
  /** Show the package page of the component's package target. */
  readonly onPackage?: ((target: string) => void) | undefined;
  /** Browse the files of the component's package target. */
  readonly onFiles?: ((target: string) => void) | undefined;
}

export function ComponentDetail({ sbom, component, onSelect, vulnerabilities = [], onPackage, onFiles }: ComponentDetailProps): JSX.Element {
  const paths = useMemo(() => pathsTo(sbom, component.ref), [sbom, component]);
  const dependents = useMemo(() => dependentsOf(sbom, component.ref), [sbom, component]);
  const dependencies = sbom.dependsOn.get(component.ref) ?? [];
  // A purl the service has package targets for links to the package page and the files.
  const target = component.purl === null ? null : targetOfPurl(component.purl);
  return (
    <section class="detail" aria-labelledby="component-heading" data-testid="component-detail" data-ref={component.ref}>
      <h3 id="component-heading" tabIndex={-1}>
        <span class="name">{component.name}</span> <span class="version">{component.version}</span>
      </h3>
      {component.description ? <p>{component.description}</p> : null}
      {target !== null && (onPackage !== undefined || onFiles !== undefined) ? (
        <p class="actions" data-testid="component-links" data-target={target}>
          {onPackage !== undefined ? (
            <button type="button" class="link" onClick={() => onPackage(target)} aria-label={`Package page of ${target}`}>
              Package page
            </button>
          ) : null}
          {onFiles !== undefined ? (
            <button type="button" class="link" onClick={() => onFiles(target)} aria-label={`Browse the files of ${target}`}>
              Files
            </button>
          ) : null}
        </p>
      ) : null}
      {vulnerabilities.length > 0 ? (
        <>
          <h4>Vulnerabilities ({vulnerabilities.length})</h4>
          <ul data-testid="component-vulnerabilities">
            {vulnerabilities.map((v) => {
              const href = v.url === null ? null : safeHref(v.url);
              return (
                <li key={v.id} data-id={v.id}>
                  <span class={`sev sev-${v.severity}`}>{v.severity}</span> {href === null ? <strong>{v.id}</strong> : <a href={href} rel="noreferrer noopener" target="_blank">{v.id}</a>}
                  {v.summary ? `: ${v.summary}` : ''} <span data-testid="component-fix">({fixFor(v, component.name, component.version) ?? 'no fixed version is published'})</span>
                </li>
              );
            })}
          </ul>
        </>
      ) : null}
      <h4>Why it is here</h4>
      {paths.length === 0 ? (
        <p class="hint">No dependency path from a project root reaches it (the document records no edge to it).</p>
      ) : (
        <>
          <p class="hint">
            {paths[0] && paths[0].length > 1 ? `Shortest path${paths.length > 1 ? 's' : ''} from the project root (${paths[0].length - 1} step${paths[0].length > 2 ? 's' : ''}):` : 'It is a project root.'}
          </p>
          <ul class="paths" data-testid="dependency-paths">
            {paths.map((path) => (
              <li key={path.join('>')}>
                <ol class="path" data-testid="dependency-path" aria-label={`Path: ${path.map((r) => label(sbom, r)).join(' then ')}`}>
                  {path.map((ref) => (
                    <li key={ref} data-ref={ref}>
                      {ref === component.ref ? (
                        <strong>{label(sbom, ref)}</strong>
                      ) : (
                        <button type="button" class="link" onClick={() => onSelect(ref)}>
                          {label(sbom, ref)}
                        </button>
                      )}
                    </li>
                  ))}
                </ol>
              </li>
            ))}
          </ul>
        </>
      )}
      <p class="hint">
        Depended on directly by {dependents.length.toLocaleString('en')}; depends on {dependencies.length.toLocaleString('en')}.
      </p>
      <dl class="facts">
        <dt>Package URL</dt>
        <dd>
          <code data-testid="component-purl">{component.purl ?? '—'}</code>
        </dd>
        <dt>Ecosystem</dt>
        <dd>{component.ecosystem}</dd>
        <dt>Scope</dt>
        <dd>{component.scope}</dd>
        <dt>License</dt>
        <dd>
          <code>{component.license.label}</code> <span class="hint">({LICENSE_KIND_WORDS[component.license.kind]})</span>
        </dd>
        <dt>Reference</dt>
        <dd>
          <code>{component.ref}</code>
        </dd>
        {component.hashes.map((h) => [
          <dt key={`${h.alg}-t`}>{h.alg}</dt>,
          <dd key={`${h.alg}-d`}>
            <code class="hash">{h.content}</code>
          </dd>,
        ])}
      </dl>
      {component.externalReferences.length > 0 ? (
        <>
          <h4>Source and links</h4>
          <ul>
            {component.externalReferences.map((r) => {
              const href = safeHref(r.url);
              return (
                <li key={`${r.type}-${r.url}`}>
                  {r.type}:{' '}
                  {href === null ? (
                    <code>{r.url}</code>
                  ) : (
                    <a href={href} rel="noreferrer noopener" target="_blank">
                      {r.url}
                    </a>
                  )}
                </li>
              );
            })}
          </ul>
        </>
      ) : null}
      {component.properties.length > 0 ? (
        <details>
          <summary>Properties ({component.properties.length})</summary>
          <dl class="facts">
            {component.properties.map((p, i) => [
              <dt key={`${i}-t`}>{p.name}</dt>,
              <dd key={`${i}-d`}>
                <code>{p.value}</code>
              </dd>,
            ])}
          </dl>
        </details>
      ) : null}
    </section>
  );
}
