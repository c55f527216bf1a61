/**
 * A CycloneDX JSON document read into what the inventory view shows. The document may come from
 * a job or from the user's disk, so every field is checked, nothing is trusted to be present, and
 * unfamiliar data is ignored.
 */

import { readSnapshots, readVulnerabilities, type AdvisorySnapshot, type Vulnerability } from './vulnerabilities.js';

export type LicenseKind = 'expression' | 'spdx-id' | 'named' | 'unknown';

export interface LicenseInfo {
  readonly kind: LicenseKind;
  /** The expression, SPDX id or name; "unknown" when none is declared. */
  readonly label: string;
}

export interface Component {
  readonly ref: string;
  readonly index: number;
  readonly type: string;
  readonly name: string;
  readonly version: string;
  readonly purl: string | null;
  readonly ecosystem: string;
  readonly scope: string;
  readonly license: LicenseInfo;
  readonly description: string | null;
  readonly hashes: readonly { readonly alg: string; readonly content: string }[];
  readonly externalReferences: readonly { readonly type: string; readonly url: string }[];
  readonly properties: readonly { readonly name: string; readonly value: string }[];
}

export interface Declaration {
  readonly manifest: string;
  readonly name: string;
  readonly range: string;
  readonly kind: string;
  readonly ecosystem: string | null;
  readonly provided: boolean;
}

export interface Resolution {
  readonly manifest: string;
  readonly outcome: string;
  readonly detail: string | null;
}

export interface LockfileRecord {
  readonly path: string;
  readonly kind: string;
  readonly version: string | null;
  readonly entries: number | null;
}

export interface Evidence {
  readonly completeness: string | null;
  readonly basis: string | null;
  readonly notice: string | null;
  readonly declarations: readonly Declaration[];
  readonly resolutions: readonly Resolution[];
  readonly lockfiles: readonly LockfileRecord[];
  /** The compositions aggregate: whether every component's dependency edges are known. */
  readonly aggregate: string | null;
  /** The advisory snapshot the vulnerabilities were matched against (`service:advisories`). */
  readonly advisories: readonly AdvisorySnapshot[];
}

export interface Sbom {
  readonly specVersion: string;
  readonly serialNumber: string | null;
  readonly timestamp: string | null;
  /** metadata.component: the project the document is about. */
  readonly subject: Component | null;
  /** Every component except the subject, in document order. */
  readonly components: readonly Component[];
  readonly byRef: ReadonlyMap<string, Component>;
  readonly dependsOn: ReadonlyMap<string, readonly string[]>;
  readonly evidence: Evidence;
  /** Its `vulnerabilities`, worst first; null when the document has none (not asked for). */
  readonly vulnerabilities: readonly Vulnerability[] | null;
}

export class DocumentError extends Error {
  override readonly name = 'DocumentError';
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function licenseOf(c: Json): LicenseInfo {
  const choices = records(c['licenses']);
  const labels: LicenseInfo[] = [];
  for (const choice of choices) {
    const expression = str(choice['expression']);
    if (expression !== null && expression.trim() !== '') {
      labels.push({ kind: 'expression', label: expression.trim() });
      continue;
    }
    const license = isRecord(choice['license']) ? choice['license'] : null;
    const id = license ? str(license['id']) : null;
    const name = license ? str(license['name']) : null;
    if (id !== null && id !== '') labels.push({ kind: 'spdx-id', label: id });
    else if (name !== null && name !== '') labels.push({ kind: 'named', label: name });
  }
  if (labels.length === 0) return { kind: 'unknown', label: 'unknown' };
  const [first] = labels;
  if (labels.length === 1 && first) return first;
  // Several license entries declare all of them together.
  return { kind: 'expression', label: labels.map((l) => (l.label.includes(' ') ? `(${l.label})` : l.label)).join(' AND ') };
}

function ecosystemOf(purl: string | null, properties: readonly { name: string; value: string }[]): string {
  const declared = properties.find((p) => p.name === 'service:ecosystem')?.value;
  if (declared) return declared;
  const match = purl === null ? null : /^pkg:([a-z0-9.+-]+)\//i.exec(purl);
  return match?.[1]?.toLowerCase() ?? 'unknown';
}

function componentOf(c: Json, index: number): Component {
  const name = str(c['name']) ?? '(unnamed)';
  const group = str(c['group']);
  const purl = str(c['purl']);
  const properties = records(c['properties']).flatMap((p) => {
    const n = str(p['name']);
    const v = str(p['value']);
    return n === null || v === null ? [] : [{ name: n, value: v }];
  });
  const ref = str(c['bom-ref']) ?? `#component-${index}`;
  return {
    ref,
    index,
    type: str(c['type']) ?? 'library',
    name: group !== null && group !== '' ? `${group}/${name}` : name,
    version: str(c['version']) ?? '',
    purl,
    ecosystem: ecosystemOf(purl, properties),
    scope: str(c['scope']) ?? 'unspecified',
    license: licenseOf(c),
    description: str(c['description']),
    hashes: records(c['hashes']).flatMap((h) => {
      const alg = str(h['alg']);
      const content = str(h['content']);
      return alg === null || content === null ? [] : [{ alg, content }];
    }),
    externalReferences: records(c['externalReferences']).flatMap((r) => {
      const type = str(r['type']);
      const url = str(r['url']);
      return type === null || url === null ? [] : [{ type, url }];
    }),
    properties,
  };
}

function parseJsonProperty<T>(value: string | undefined, read: (item: Json) => T | null): T[] {
  if (value === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return records(parsed).flatMap((item) => {
      const r = read(item);
      return r === null ? [] : [r];
    });
  } catch {
    return [];
  }
}

function evidenceOf(doc: Json): Evidence {
  const props = new Map<string, string>();
  for (const p of records(doc['properties'])) {
    const n = str(p['name']);
    const v = str(p['value']);
    if (n !== null && v !== null && !props.has(n)) props.set(n, v);
  }
  const aggregate = str(records(doc['compositions'])[0]?.['aggregate']);
  return {
    completeness: props.get('service:completeness') ?? null,
    basis: props.get('service:resolution_basis') ?? null,
    notice: props.get('service:notice') ?? null,
    declarations: parseJsonProperty(props.get('service:declarations'), (d) => {
      const manifest = str(d['manifest']);
      const name = str(d['name']);
      if (manifest === null || name === null) return null;
      return { manifest, name, range: str(d['range']) ?? '', kind: str(d['kind']) ?? '', ecosystem: str(d['ecosystem']), provided: d['provided'] === true };
    }),
    resolutions: parseJsonProperty(props.get('service:resolutions'), (r) => {
      const manifest = str(r['manifest']);
      const outcome = str(r['outcome']);
      return manifest === null || outcome === null ? null : { manifest, outcome, detail: str(r['detail']) };
    }),
    lockfiles: parseJsonProperty(props.get('service:lockfiles'), (l) => {
      const path = str(l['path']);
      if (path === null) return null;
      return { path, kind: str(l['kind']) ?? '', version: str(l['version']), entries: typeof l['entries'] === 'number' ? l['entries'] : null };
    }),
    aggregate,
    advisories: readSnapshots(props.get('service:advisories')),
  };
}

/** Reads a parsed JSON value as a CycloneDX document; throws DocumentError when it is not one. */
export function readCycloneDx(value: unknown): Sbom {
  if (!isRecord(value) || value['bomFormat'] !== 'CycloneDX') throw new DocumentError('This is not a CycloneDX JSON document (bomFormat is not "CycloneDX").');
  const metadata = isRecord(value['metadata']) ? value['metadata'] : {};
  const subject = isRecord(metadata['component']) ? componentOf(metadata['component'], -1) : null;
  const components = records(value['components']).map(componentOf);
  const byRef = new Map<string, Component>();
  if (subject) byRef.set(subject.ref, subject);
  for (const c of components) if (!byRef.has(c.ref)) byRef.set(c.ref, c);
  const dependsOn = new Map<string, string[]>();
  for (const d of records(value['dependencies'])) {
    const ref = str(d['ref']);
    if (ref === null) continue;
    const targets = Array.isArray(d['dependsOn']) ? d['dependsOn'].filter((t): t is string => typeof t === 'string') : [];
    dependsOn.set(ref, [...(dependsOn.get(ref) ?? []), ...targets]);
  }
  return {
    specVersion: str(value['specVersion']) ?? '?',
    serialNumber: str(value['serialNumber']),
    timestamp: str(metadata['timestamp']),
    subject,
    components,
    byRef,
    dependsOn,
    evidence: evidenceOf(value),
    vulnerabilities: readVulnerabilities(value),
  };
}

/** The evidence's values in plain words. */
export const COMPLETENESS_WORDS: Readonly<Record<string, string>> = {
  resolved_manifest_inventory: 'Complete as resolved: no lockfile recorded the dependencies, so the manifests were resolved against the registry when the job ran. A later install may differ.',
  partial_manifest_inventory: 'Partial: some manifests or requirements could not be resolved, so packages may be missing from this inventory.',
  recorded_lockfile_inventory: 'Complete as recorded: the components are exactly the entries of the uploaded lockfiles.',
  mixed_dependency_inventory: 'Mixed: lockfile records for some projects, manifests resolved against the registry for the others.',
};

export const BASIS_WORDS: Readonly<Record<string, string>> = {
  manifest_resolution: 'resolved from manifests',
  lockfile_records: 'read from lockfile records',
  lockfile_records_and_manifest_resolution: 'read from lockfiles and resolved from manifests',
};
