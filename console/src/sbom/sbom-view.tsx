import type { JSX } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { breakdown, filterAndSort, licenseKindCounts, type SortKey } from './analysis.js';
import { BarChart } from './bar-chart.js';
import { ComponentDetail } from './component-detail.js';
import { ComponentTable } from './component-table.js';
import type { Sbom } from './document.js';
import { EvidenceView } from './evidence-view.js';
import { byComponent } from './vulnerabilities.js';
import { VulnerabilitiesView } from './vulnerabilities-view.js';

export interface LoadedSbom {
  readonly sbom: Sbom;
  /** Where it came from: "job <id>" or a file name. */
  readonly source: string;
}

export interface SbomViewProps {
  readonly loaded: LoadedSbom | null;
  /** Reads a file the user picked or dropped. */
  readonly onFile: (file: File) => void;
  /** Show a component's package page, by its package target. */
  readonly onPackage?: (target: string) => void;
  /** Browse a component's files, by its package target. */
  readonly onFiles?: (target: string) => void;
}

/** The inventory of one CycloneDX document: evidence, breakdowns, components and why each is there. */
export function SbomView({ loaded, onFile, onPackage, onFiles }: SbomViewProps): JSX.Element {
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<SortKey>('name');
  const [descending, setDescending] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const summary = useRef<HTMLDivElement>(null);
  const sbom = loaded?.sbom ?? null;

  useEffect(() => {
    setSelected(null);
    setFilter('');
  }, [sbom]);

  // An opened inventory is brought into view (the picker above it may have been scrolled past).
  useEffect(() => {
    if (sbom !== null) requestAnimationFrame(() => summary.current?.scrollIntoView({ block: 'start' }));
  }, [sbom]);

  const rows = useMemo(() => (sbom === null ? [] : filterAndSort(sbom.components, filter, sort, descending)), [sbom, filter, sort, descending]);
  const charts = useMemo(() => {
    if (sbom === null) return null;
    const all = sbom.components;
    return {
      licenses: breakdown(all, (c) => c.license.label, 12, (c) => c.license.kind),
      kinds: licenseKindCounts(all),
      ecosystems: breakdown(all, (c) => c.ecosystem, 8),
      scopes: breakdown(all, (c) => c.scope, 6),
    };
  }, [sbom]);
  const component = selected === null ? null : (sbom?.byRef.get(selected) ?? null);
  const vulnerable = useMemo(() => byComponent(sbom?.vulnerabilities ?? []), [sbom]);

  const onDrop = (event: DragEvent): void => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer?.files[0];
    if (file) onFile(file);
  };

  return (
    <section aria-labelledby="sbom-heading" class={dragging ? 'dropzone dragging' : 'dropzone'} onDragOver={(e) => { e.preventDefault(); setDragging(true); }} onDragLeave={() => setDragging(false)} onDrop={onDrop}>
      <h2 id="sbom-heading">Inventory</h2>
      <p class="hint">
        A finished CycloneDX job opens here; or open a CycloneDX JSON document from your disk (pick it, or drop it on this page). It is read in the browser and sent nowhere.
      </p>
      <p>
        <label for="sbom-file">Open a CycloneDX JSON file</label>
        <input
          id="sbom-file"
          ref={fileInput}
          data-testid="sbom-file"
          type="file"
          accept=".json,.cdx.json,application/json,application/vnd.cyclonedx+json"
          onChange={() => {
            const file = fileInput.current?.files?.[0];
            if (file) onFile(file);
          }}
        />
      </p>
      {sbom === null || charts === null || loaded === null ? (
        <p class="hint" data-testid="sbom-empty">No inventory open yet.</p>
      ) : (
        <div data-testid="sbom" ref={summary}>
          <p data-testid="sbom-summary">
            <strong>{sbom.subject ? `${sbom.subject.name}${sbom.subject.version ? ` ${sbom.subject.version}` : ''}` : 'Unnamed project'}</strong>: {sbom.components.length.toLocaleString('en')} components, CycloneDX {sbom.specVersion}
            {sbom.timestamp ? `, made ${new Date(sbom.timestamp).toLocaleString()}` : ''} (from {loaded.source}).
          </p>
          <EvidenceView evidence={sbom.evidence} />
          <div class="charts">
            <BarChart
              id="license-chart"
              title="Licenses"
              slices={charts.licenses}
              total={sbom.components.length}
              legend={
                <p class="legend hint">
                  <span class="swatch swatch-expression" aria-hidden="true" /> SPDX expression ({charts.kinds.expression + charts.kinds['spdx-id']}) <span class="swatch swatch-named" aria-hidden="true" /> named license ({charts.kinds.named}) <span class="swatch swatch-unknown" aria-hidden="true" /> unknown ({charts.kinds.unknown})
                </p>
              }
            />
            <BarChart id="ecosystem-chart" title="Ecosystems" slices={charts.ecosystems} total={sbom.components.length} />
            <BarChart id="scope-chart" title="Scopes" slices={charts.scopes} total={sbom.components.length} />
          </div>
          {sbom.vulnerabilities !== null ? <VulnerabilitiesView sbom={sbom} vulnerabilities={sbom.vulnerabilities} onSelect={setSelected} /> : null}
          <h3>Components</h3>
          <div class="toolbar">
            <label for="component-filter">Filter components</label>
            <input id="component-filter" data-testid="component-filter" type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} placeholder="name, version, license, purl…" />
            <span role="status" data-testid="sbom-count" data-count={rows.length}>
              {rows.length.toLocaleString('en')} of {sbom.components.length.toLocaleString('en')} shown
            </span>
          </div>
          <div class="sbom-main">
            <ComponentTable
              rows={rows}
              sort={sort}
              descending={descending}
              onSort={(key) => {
                if (key === sort) setDescending(!descending);
                else {
                  setSort(key);
                  setDescending(false);
                }
              }}
              selected={selected}
              onSelect={setSelected}
            />
            {component !== null ? <ComponentDetail sbom={sbom} component={component} onSelect={setSelected} vulnerabilities={vulnerable.get(component.ref) ?? []} onPackage={onPackage} onFiles={onFiles} /> : <p class="hint detail">Select a component to see why it is here.</p>}
          </div>
        </div>
      )}
    </section>
  );
}
