/**
 * What SBOM consumers require of the documents: an SPDX document describes something even when the
 * upload names no project (a lockfile alone), and CycloneDX passes cdxgen's `cdx-validate --strict`
 * (every dependency entry states its `dependsOn`, the subject links every other root, no ref that
 * reads as a twice-encoded purl) and carries a timestamp in whole seconds (cdx-convert's SPDX 3).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/sbom/analyze.js';
import { RegistryEnricher } from '../../src/sbom/enrich.js';
import { EMPTY_METADATA } from '../../src/model/metadata.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { execFileTracked } from '../helpers/processes.js';
import { LOCKFILE_SAMPLES, type LockfileSample } from '../e2e/lockfiles.js';

const run = execFileTracked;

interface Relationship {
  spdxElementId: string;
  relationshipType: string;
  relatedSpdxElement: string;
}
interface SpdxDoc {
  name: string;
  packages: { SPDXID: string; name: string; versionInfo?: string; primaryPackagePurpose: string }[];
  relationships: Relationship[];
}
interface CdxComponent {
  'bom-ref': string;
  name: string;
  type: string;
  version?: string;
}
interface CdxDoc {
  metadata: { timestamp: string; component?: CdxComponent };
  components: CdxComponent[];
  dependencies: { ref: string; dependsOn?: string[] }[];
}

/** The lockfiles that record no project root of their own. */
const ROOTLESS = ['mix.lock', 'rebar.lock', 'pubspec.lock', 'Package.resolved', 'poetry.lock', 'pdm.lock', 'Pipfile.lock', 'pylock.toml', 'requirements.txt'];

function sample(format: string): LockfileSample {
  const found = LOCKFILE_SAMPLES.find((s) => s.format === format);
  if (!found) throw new Error(`no sample ${format}`);
  return found;
}

describe('an upload whose lockfile records no project root', () => {
  it.each(ROOTLESS)('%s: SPDX describes a package standing for the upload, depending on the top-level components', async (format) => {
    const doc = JSON.parse((await analyze(sample(format).files, 'spdx')).document) as SpdxDoc;
    const describes = doc.relationships.filter((r) => r.relationshipType === 'DESCRIBES');
    expect(describes).toHaveLength(1);
    const upload = doc.packages.find((p) => p.SPDXID === describes[0]?.relatedSpdxElement);
    expect(upload).toMatchObject({ name: 'uploaded-manifests', primaryPackagePurpose: 'APPLICATION' });
    expect(upload?.versionInfo).toBeUndefined();
    expect(doc.name).toBe('pkgscope inventory of uploaded-manifests');
    // Its dependencies are exactly the packages no other package depends on.
    const dependedOn = new Set(doc.relationships.filter((r) => r.relationshipType === 'DEPENDS_ON' && r.spdxElementId !== upload?.SPDXID).map((r) => r.relatedSpdxElement));
    const top = doc.packages.filter((p) => p !== upload && !dependedOn.has(p.SPDXID)).map((p) => p.SPDXID);
    const direct = doc.relationships.filter((r) => r.spdxElementId === upload?.SPDXID && r.relationshipType === 'DEPENDS_ON').map((r) => r.relatedSpdxElement);
    expect(top.length).toBeGreaterThan(0);
    expect(direct.sort()).toEqual(top.sort());
  });

  it('poetry.lock: the top of a chain is the only dependency of the upload, in SPDX and CycloneDX alike', async () => {
    const spdx = JSON.parse((await analyze(sample('poetry.lock').files, 'spdx')).document) as SpdxDoc;
    const names = new Map(spdx.packages.map((p) => [p.SPDXID, p.name]));
    const fromUpload = spdx.relationships.filter((r) => names.get(r.spdxElementId) === 'uploaded-manifests').map((r) => names.get(r.relatedSpdxElement));
    expect(fromUpload).toEqual(['markdown-it-py']);
    const bom = JSON.parse((await analyze(sample('poetry.lock').files, 'cyclonedx')).document) as CdxDoc;
    const subject = bom.metadata.component;
    expect(subject).toMatchObject({ type: 'application', name: 'uploaded-manifests' });
    expect(subject?.version).toBeUndefined();
    const byRef = new Map(bom.components.map((c) => [c['bom-ref'], c.name]));
    expect(bom.dependencies.find((d) => d.ref === subject?.['bom-ref'])?.dependsOn?.map((r) => byRef.get(r))).toEqual(['markdown-it-py']);
  });

  it('is named after the lockfiles’ folder when they share one', async () => {
    const files = sample('poetry.lock').files.map((f) => ({ ...f, path: `services/billing/${f.path}` }));
    const spdx = JSON.parse((await analyze(files, 'spdx')).document) as SpdxDoc;
    expect(spdx.packages[0]).toMatchObject({ name: 'billing', primaryPackagePurpose: 'APPLICATION' });
    const bom = JSON.parse((await analyze(files, 'cyclonedx')).document) as CdxDoc;
    expect(bom.metadata.component?.name).toBe('billing');
  });

  it('leaves documents with a project root as they were: no package for the upload', async () => {
    const spdx = JSON.parse((await analyze(sample('uv.lock').files, 'spdx')).document) as SpdxDoc;
    expect(spdx.packages.some((p) => p.name === 'uploaded-manifests')).toBe(false);
    expect(spdx.relationships.filter((r) => r.relationshipType === 'DESCRIBES').map((r) => spdx.packages.find((p) => p.SPDXID === r.relatedSpdxElement)?.name)).toEqual(['app']);
  });
});

describe('CycloneDX as cdxgen’s tools read it', () => {
  const documents = new Map<string, CdxDoc>();
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pkgscope-cdx-'));
    for (const [i, s] of LOCKFILE_SAMPLES.entries()) {
      const text = (await analyze(s.files, 'cyclonedx', { now: () => new Date('2026-11-27T17:00:00.456Z') })).document;
      const file = join(dir, `${i}.cdx.json`);
      await writeFile(file, text);
      documents.set(file, JSON.parse(text) as CdxDoc);
    }
    // And one with registry metadata: suppliers (a person with a contact, an organization) and authors.
    const metadata = { ...EMPTY_METADATA, author: 'Ada <ada@example.test> (https://ada.example.test)', supplier: { kind: 'person' as const, party: 'Ada <ada@example.test> (https://ada.example.test)' } };
    const registry = new RegistryEnricher(new Map([['npm', { fetch: (name: string) => Promise.resolve(name.startsWith('e') ? { ...EMPTY_METADATA, supplier: { kind: 'organization' as const, party: 'OpenJS Foundation' } } : metadata) }]]), null);
    const text = (await analyze(SMALL_NPM(), 'cyclonedx', { registry, now: () => new Date('2026-11-27T17:00:00.456Z') })).document;
    expect(text).toContain('"supplier":{"name":"OpenJS Foundation"}');
    const file = join(dir, 'enriched.cdx.json');
    await writeFile(file, text);
    documents.set(file, JSON.parse(text) as CdxDoc);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes every dependency entry with its dependsOn, leaves included, and the timestamp in whole seconds', () => {
    for (const doc of documents.values()) {
      expect(doc.metadata.timestamp).toBe('2026-11-27T17:00:00Z');
      const refs = [doc.metadata.component, ...doc.components].map((c) => c?.['bom-ref']);
      expect(doc.dependencies.map((d) => d.ref).sort()).toEqual(refs.sort());
      for (const entry of doc.dependencies) expect(Array.isArray(entry.dependsOn)).toBe(true);
    }
  });

  it('links the subject to every other root (go.mod with the modules of its workspace)', () => {
    const index = LOCKFILE_SAMPLES.findIndex((s) => s.format === 'go.mod with go.sum');
    const doc = documents.get(join(dir, `${index}.cdx.json`));
    const roots = (doc?.components ?? []).filter((c) => c.type === 'application').map((c) => c['bom-ref']);
    expect(roots.length).toBeGreaterThan(0);
    const own = doc?.dependencies.find((d) => d.ref === doc.metadata.component?.['bom-ref'])?.dependsOn ?? [];
    expect(own).toEqual(expect.arrayContaining(roots));
  });

  it('passes cdx-validate --strict for the lockfile of every format and ecosystem, and with registry suppliers', async () => {
    const files = [...documents.keys()];
    const script = join(import.meta.dirname, '..', 'helpers', 'cdx-validate-many.ts');
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script, ...files], { maxBuffer: 64 * 1024 * 1024 });
    const results = JSON.parse(stdout) as { file: string; schemaValid: boolean; deepValid: boolean; fails: boolean; said: string[] }[];
    expect(results).toHaveLength(LOCKFILE_SAMPLES.length + 1);
    const failed = results.filter((r) => !r.schemaValid || !r.deepValid || r.fails);
    expect(failed.map((r) => ({ format: LOCKFILE_SAMPLES[Number(/(\d+)\.cdx\.json$/.exec(r.file)?.[1])]?.format ?? r.file, said: r.said }))).toEqual([]);
  }, 120_000);

  it('and the CLI itself agrees, on an upload without a root and on refs holding percent signs (yarn berry)', async () => {
    const bin = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'cdx-validate');
    const pick = ['poetry.lock', 'yarn.lock (berry)'].map((format) => join(dir, `${LOCKFILE_SAMPLES.findIndex((s) => s.format === format)}.cdx.json`));
    const runs = pick.map((file) => run(bin, ['--strict', '--no-include-manual', '--fail-severity', 'critical', '-r', 'json', '-i', file], { maxBuffer: 64 * 1024 * 1024 }));
    // execFile rejects on a non-zero exit: both resolving is the CLI's exit code 0.
    for (const { stdout } of await Promise.all(runs)) expect(JSON.parse(stdout)).toMatchObject({ schemaValid: true, deepValid: true });
  }, 120_000);
});
