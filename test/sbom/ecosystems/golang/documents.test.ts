import * as CDX from '@cyclonedx/cyclonedx-library';
import { afterEach, describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import { offlineEcosystems } from '../../../../src/ecosystems/analysis.js';
import { golangEcosystem } from '../../../../src/ecosystems/golang/analysis.js';
import { RegistryEnricher } from '../../../../src/sbom/enrich.js';
import { fixtureHttp } from '../../../helpers/registry-fixture.js';
import type { MetadataClient } from '../../../../src/model/enrich-types.js';
import { spdxProblems } from '../../../../src/sbom/validate/spdx.js';
import { AnalysisError, type InputFile } from '../../../../src/model/types.js';
import { startGoProxy, type GoProxyOptions } from '../../../helpers/go-proxy.js';
import { officialSpdxSchema } from '../../../helpers/spdx-schema.js';
import { goFixture } from './helpers.js';

const cdxValidator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7);
const offline = () => [...offlineEcosystems(), golangEcosystem(null)];

interface Component {
  'bom-ref': string;
  name: string;
  version?: string;
  purl?: string;
  scope?: string;
  hashes?: unknown[];
  externalReferences?: { type: string; url: string }[];
  properties?: { name: string; value: string }[];
}
interface Bom {
  metadata: { component?: Component };
  components: Component[];
  dependencies: { ref: string; dependsOn?: string[] }[];
  compositions: { aggregate: string }[];
  properties: { name: string; value: string }[];
}

const prop = (c: Component | undefined, name: string) => c?.properties?.find((p) => p.name === name)?.value;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe.each(['module', 'workspace', 'legacy'])('the %s fixture through analyze()', (set) => {
  const files = goFixture(set);

  it('renders strictly valid CycloneDX 1.7 with Go purls, unknown scopes and an incomplete graph', async () => {
    const { document } = await analyze(files, 'cyclonedx', { ecosystems: offline() });
    expect(await cdxValidator.validate(document)).toBeNull();
    const bom = JSON.parse(document) as Bom;
    const libraries = bom.components.filter((c) => c.purl !== undefined);
    expect(libraries.length).toBeGreaterThan(0);
    for (const c of libraries) {
      expect(c.purl).toBe(`pkg:golang/${c.name}@${c.version ?? ''}`);
      // go.mod records no development split: the document states no scope rather than guess one.
      expect(c.scope).toBeUndefined();
      expect(c.hashes).toBeUndefined();
      expect(prop(c, 'service:ecosystem')).toBe('golang');
    }
    expect(bom.compositions[0]?.aggregate).toBe('incomplete');
  });

  it('renders valid SPDX 2.3 and a text inventory naming the ecosystem', async () => {
    const spdx = JSON.parse((await analyze(files, 'spdx', { ecosystems: offline() })).document) as unknown;
    expect(officialSpdxSchema(spdx)).toBe(true);
    expect(spdxProblems(spdx)).toEqual({ schema: [], content: [] });
    const text = (await analyze(files, 'text', { ecosystems: offline() })).document;
    expect(text).toMatch(/^Go +\S+/m);
  });
});

describe('Go facts in the documents', () => {
  it('carries the replaced module, indirect marks and go.sum hashes as properties', async () => {
    const { document } = await analyze(goFixture('module'), 'cyclonedx', { ecosystems: offline() });
    const bom = JSON.parse(document) as Bom;
    const mux = bom.components.find((c) => c.name === 'github.com/containous/mux');
    expect(prop(mux, 'service:replaces')).toBe('github.com/gorilla/mux@v1.8.1');
    expect(prop(mux, 'service:go_sum')).toMatch(/^h1:/);
    expect(prop(bom.components.find((c) => c.name === 'github.com/prometheus/common'), 'service:indirect')).toBe('true');
    // The main module is the document's subject; the modules replaced by directories stay roots.
    const main = bom.metadata.component;
    expect(main?.name).toBe('github.com/acme/widget/v2');
    expect(main?.purl).toBeUndefined();
    expect(bom.components.filter((c) => c.purl === undefined).map((c) => c.name).sort()).toEqual(['github.com/acme/shared', 'github.com/acme/widget-internal']);
    expect(bom.dependencies.find((d) => d['ref'] === main?.['bom-ref'])?.dependsOn).toHaveLength(19);
    const lockfiles = JSON.parse(bom.properties.find((p) => p.name === 'service:lockfiles')?.value ?? '[]') as unknown[];
    expect(lockfiles).toEqual([{ path: 'go.mod', kind: 'go.mod', version: '1.23.0', entries: 17 }]);
  });

  it('gives npm and Go components in one document for a polyglot upload', async () => {
    const files: InputFile[] = [
      { path: 'web/package.json', content: JSON.stringify({ name: 'web', version: '1.0.0' }) },
      { path: 'web/package-lock.json', content: JSON.stringify({ name: 'web', version: '1.0.0', lockfileVersion: 3, packages: { '': { name: 'web', version: '1.0.0' } } }) },
      ...goFixture('legacy'),
    ];
    const bom = JSON.parse((await analyze(files, 'cyclonedx', { ecosystems: offline() })).document) as Bom;
    expect(new Set(bom.components.map((c) => prop(c, 'service:ecosystem')))).toEqual(new Set(['npm', 'golang']));
  });
});

describe('an upload whose only go.mod cannot be read', () => {
  it('fails as no_manifest_evidence naming the file, the line and the reason, never an internal error', async () => {
    const failure = analyze([{ path: 'svc/go.mod', content: 'module a\n\nrequire (\n\tb.com/c v1.0.0\n' }], 'cyclonedx', { ecosystems: offline() });
    await expect(failure).rejects.toBeInstanceOf(AnalysisError);
    await expect(failure).rejects.toMatchObject({ code: 'no_manifest_evidence', problems: [expect.objectContaining({ path: 'svc/go.mod', reason: 'malformed', line: 3 })] });
  });
});

describe('enrichment from a Go module proxy', () => {
  async function analyzeWith(options: GoProxyOptions) {
    const proxy = await startGoProxy(options);
    const http = fixtureHttp(options.hang === true);
    open.push(http, proxy);
    const go = golangEcosystem({ base: proxy.url, http });
    const registry = new RegistryEnricher(new Map<string, MetadataClient>([['golang', go.metadata!]]), null);
    const files = goFixture('legacy');
    const result = await analyze(files, 'cyclonedx', { ecosystems: [...offlineEcosystems(), go], registry });
    return { proxy, bom: JSON.parse(result.document) as Bom };
  }

  it('adds the repository from the proxy’s Origin; licenses stay unknown', async () => {
    const { bom } = await analyzeWith({
      modules: {
        'github.com/pkg/errors': { versions: { 'v0.8.1': { time: '2019-01-03T06:52:24Z', origin: { VCS: 'git', URL: 'https://github.com/pkg/errors' } } } },
      },
    });
    const errors = bom.components.find((c) => c.name === 'github.com/pkg/errors');
    expect(errors?.externalReferences).toEqual([{ type: 'vcs', url: 'https://github.com/pkg/errors' }]);
    expect(bom.components.every((c) => !('licenses' in c) || (c.licenses as unknown[]).length === 0)).toBe(true);
  });

  it.each([
    ['answers 500', { status: 500 }],
    ['never answers', { hang: true }],
  ])('keeps what go.mod recorded when the proxy %s, and names the failure', async (_name, options) => {
    const { bom, proxy } = await analyzeWith(options);
    expect(bom.components.filter((c) => c.purl !== undefined)).toHaveLength(4);
    expect(proxy.requests.length).toBeGreaterThan(0);
    const notice = bom.properties.find((p) => p.name === 'service:notice')?.value ?? '';
    expect(notice).toContain('Registry metadata could not be fetched for');
    expect(notice).toContain('github.com/pkg/errors');
  });
});
