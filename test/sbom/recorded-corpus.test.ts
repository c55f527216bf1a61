import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PackageURL } from 'packageurl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInputs } from '../../src/commands/sbom-inputs.js';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import type { OutputFormat } from '../../src/model/types.js';
import { cycloneDxProblems } from '../../src/sbom/validate/cyclonedx.js';
import { spdxProblems } from '../../src/sbom/validate/spdx.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { CORPUS_DIR, loadRecording, startRecordedRegistry, type RecordedRegistry } from '../helpers/recorded-registry.js';
import { deleteKeysOnSharedRedis, REDIS_URL } from '../helpers/services.js';
import { JOBS, startApi, startService, type ApiClient, type ServiceProcess } from '../helpers/service-processes.js';
import { officialSpdxSchema } from '../helpers/spdx-schema.js';
import { SseClient } from '../helpers/sse.js';

/**
 * The JavaScript sets of the shared lockfile corpus (real lockfiles of hono, vue and prettier),
 * analysed by a running API and worker against the registry documents recorded for them
 * (scripts/record-npm-metadata.js): real metadata, quirks included, in every output format.
 */
const SETS = ['js-bun-hono', 'js-pnpm-vue', 'js-yarn-berry-prettier'] as const;
const FORMATS: readonly OutputFormat[] = ['cyclonedx', 'spdx', 'text'];

interface Truth {
  readonly entries: readonly { readonly name: string; readonly version: string }[];
  readonly roots: readonly unknown[];
}
const truthOf = (set: string): Truth => JSON.parse(readFileSync(join(CORPUS_DIR, set, 'truth.json'), 'utf8')) as Truth;

/** `name@version` of an npm purl; null for any other. */
function npmCoordinate(purl: unknown): string | null {
  if (typeof purl !== 'string') return null;
  const p = PackageURL.fromString(purl);
  if (p.type !== 'npm') return null;
  return `${p.namespace ? `${p.namespace}/` : ''}${p.name}@${p.version ?? ''}`;
}

interface CdxComponent {
  readonly name: string;
  readonly purl?: string;
  readonly description?: string;
  readonly authors?: readonly { name?: string; email?: string }[];
  readonly licenses?: readonly { expression?: string; license?: { id?: string; name?: string } }[];
  readonly properties?: readonly { name: string; value: string }[];
}
interface SpdxPackage {
  readonly name: string;
  readonly originator?: string;
  readonly licenseDeclared?: string;
  readonly externalRefs?: readonly { referenceType: string; referenceLocator: string }[];
}

const registryComponents = (doc: { components?: CdxComponent[] }): CdxComponent[] =>
  (doc.components ?? []).filter((c) => c.properties?.some((p) => p.name === 'service:source' && p.value === 'registry'));
const purlOf = (p: SpdxPackage): string | undefined => p.externalRefs?.find((r) => r.referenceType === 'purl')?.referenceLocator;

const corpusPresent = existsSync(CORPUS_DIR);
if (!corpusPresent) console.warn(`recorded-corpus: ${CORPUS_DIR} is missing; the corpus tests are skipped`);

describe.skipIf(!corpusPresent)('the JavaScript corpus through a running service with recorded registry documents', () => {
  const recording = loadRecording();
  let database: TestDatabase | undefined;
  let registry: RecordedRegistry | undefined;
  let api: (ServiceProcess & ApiClient) | undefined;
  let worker: ServiceProcess | undefined;
  const prefix = `pkgscope-test-${randomBytes(4).toString('hex')}`;
  /** Per set and format: the finished job and its result document. */
  const results = new Map<string, { snapshot: JobSnapshot; body: string }>();
  let elapsedMs = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    registry = await startRecordedRegistry(recording);
    // A long lock: nine analyses of a thousand packages share two cores with the rest of the suite.
    const service = { databaseUrl: database.url, redisUrl: REDIS_URL, redisPrefix: prefix, registryUrl: registry.url, extra: { JOB_LOCK_MS: '30000' } };
    // Both started before either failure is thrown, so afterAll stops whichever did start.
    const [started, working] = await Promise.allSettled([startApi(service), startService('worker', service, { WORKER_CONCURRENCY: '9' })]);
    if (started.status === 'fulfilled') api = started.value;
    if (working.status === 'fulfilled') worker = working.value;
    if (started.status === 'rejected') throw started.reason;
    if (working.status === 'rejected') throw working.reason;
    const client = started.value;
    const since = Date.now();
    // One job per set and format, all at once.
    await Promise.all(
      SETS.flatMap((set) =>
        FORMATS.map(async (format) => {
          const { files } = await readInputs([join(CORPUS_DIR, set)]);
          const submitted = await client.request(JOBS, { method: 'POST', body: JSON.stringify({ format, files }) });
          expect(submitted.status, await submitted.clone().text()).toBe(202);
          const { id } = (await submitted.json()) as JobSnapshot;
          const events = new SseClient(`${client.base}${JOBS}/${id}/events`, client.token);
          await events.ended;
          const snapshot = events.snapshots().at(-1);
          if (snapshot === undefined) throw new Error(`no snapshot of ${set} ${format}`);
          const result = await client.request(`${JOBS}/${id}/result`);
          results.set(`${set} ${format}`, { snapshot, body: await result.text() });
        }),
      ),
    );
    elapsedMs = Date.now() - since;
    console.log(`recorded-corpus: ${SETS.length * FORMATS.length} jobs finished in ${elapsedMs} ms`);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await registry?.close();
    await database?.drop();
    await deleteKeysOnSharedRedis(prefix);
  });

  const result = (set: string, format: OutputFormat): { snapshot: JobSnapshot; body: string } => {
    const found = results.get(`${set} ${format}`);
    if (!found) throw new Error(`no result for ${set} ${format}`);
    return found;
  };

  it('asks the registry for full version documents only, never for abbreviated ones', () => {
    const versionRequests = (registry?.requests ?? []).filter((r) => !r.path.startsWith('/-/'));
    expect(versionRequests.length).toBeGreaterThan(0);
    expect(versionRequests.filter((r) => r.accept?.includes('application/vnd.npm.install-v1+json') === true)).toEqual([]);
  });

  describe.each(SETS)('%s', (set) => {
    // Read by the tests, not while collecting them: a checkout without the corpus skips them.
    const truth = (): Truth => truthOf(set);
    const expected = (): string[] => [...new Set(truth().entries.map((e) => `${e.name}@${e.version}`))].sort();

    it('succeeds in every format', () => {
      for (const format of FORMATS) {
        const { snapshot, body } = result(set, format);
        expect(snapshot, `${format}: ${JSON.stringify(snapshot.error)}`).toMatchObject({ state: 'succeeded' });
        expect(body.length).toBeGreaterThan(0);
      }
    });

    it('CycloneDX: valid, every lockfile package once per coordinate, with its registry facts', () => {
      const { body } = result(set, 'cyclonedx');
      expect(cycloneDxProblems(body)).toEqual([]);
      const components = registryComponents(JSON.parse(body) as { components?: CdxComponent[] });
      // The coordinates are the corpus truth's (computed without this project's parsers).
      expect([...new Set(components.map((c) => npmCoordinate(c.purl)))].sort()).toEqual(expected());
      // Every description the registry sent came through as sent (trimmed).
      for (const c of components) {
        const coordinate = npmCoordinate(c.purl) ?? '';
        const at = coordinate.lastIndexOf('@');
        const doc = recording.packuments[coordinate.slice(0, at)]?.versions[coordinate.slice(at + 1)];
        expect(doc, coordinate).toBeDefined();
        const description = typeof doc?.['description'] === 'string' && doc['description'].trim() !== '' ? doc['description'].trim() : undefined;
        expect(c.description, coordinate).toBe(description);
      }
    });

    it('SPDX: valid against the official schema and our content rules, every lockfile package present', () => {
      const { body } = result(set, 'spdx');
      const doc = JSON.parse(body) as { packages: SpdxPackage[] };
      expect(officialSpdxSchema(doc), JSON.stringify(officialSpdxSchema.errors?.slice(0, 5))).toBe(true);
      expect(spdxProblems(doc)).toEqual({ schema: [], content: [] });
      const coordinates = new Set(doc.packages.map((p) => npmCoordinate(purlOf(p))));
      expect(expected().filter((c) => !coordinates.has(c))).toEqual([]);
    });

    it('text: counts the lockfile packages and the project roots', () => {
      const { body } = result(set, 'text');
      const cdx = registryComponents(JSON.parse(result(set, 'cyclonedx').body) as { components?: CdxComponent[] });
      const counted = /^components: +(\d+) \((\d+) project roots?\)$/m.exec(body);
      expect(counted, body.slice(0, 400)).not.toBeNull();
      const [total, roots] = [Number(counted?.[1]), Number(counted?.[2])];
      expect(roots).toBe(truth().roots.length);
      expect(total - roots).toBe(cdx.length);
    });
  });

  describe('real-world metadata quirks', () => {
    it('an author written "Name <http://url>" (path-parse@1.0.7) is a name and a link, in every format', () => {
      expect(recording.packuments['path-parse']?.versions['1.0.7']?.['author']).toBe('Javier Blanco <http://jbgutierrez.info>');
      const cdx = JSON.parse(result('js-pnpm-vue', 'cyclonedx').body) as { components: (CdxComponent & { externalReferences?: { url: string; type: string }[] })[] };
      const component = cdx.components.find((c) => c.purl === 'pkg:npm/path-parse@1.0.7');
      expect(component?.authors).toEqual([{ name: 'Javier Blanco' }]);
      expect(component?.externalReferences).toContainEqual(expect.objectContaining({ url: 'http://jbgutierrez.info' }));
      expect(component?.licenses).toEqual([{ expression: 'MIT' }]);
      const spdx = JSON.parse(result('js-pnpm-vue', 'spdx').body) as { packages: SpdxPackage[] };
      expect(spdx.packages.find((p) => purlOf(p) === 'pkg:npm/path-parse@1.0.7')).toMatchObject({ originator: 'Person: Javier Blanco', licenseDeclared: 'MIT' });
      expect(result('js-pnpm-vue', 'text').body).toMatch(/^npm +path-parse +1\.0\.7 +MIT /m);
    });

    it('a license given only in the legacy `licenses` array (memorystream@0.3.1) is the declared license', () => {
      const doc = recording.packuments['memorystream']?.versions['0.3.1'];
      expect(doc?.['license']).toBeUndefined();
      expect(doc?.['licenses']).toEqual([expect.objectContaining({ type: 'MIT' })]);
      const cdx = JSON.parse(result('js-pnpm-vue', 'cyclonedx').body) as { components: CdxComponent[] };
      expect(cdx.components.find((c) => c.purl === 'pkg:npm/memorystream@0.3.1')?.licenses).toEqual([{ expression: 'MIT' }]);
    });
  });
});
