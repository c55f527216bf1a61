import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OsvAdvisory, VulnerabilityMatch, VulnerabilityReport } from '../../src/advisories/types.js';
import { readZip } from '../../src/archives/zip-reader.js';
import { evidenceOf } from '../../src/sbom/evidence.js';
import { emptyInventory, type Inventory, type Occurrence } from '../../src/model/model.js';
import type { RenderInput } from '../../src/sbom/render/input.js';

/** The real OSV data beside the project (see its README). */
export const ADVISORIES = join(import.meta.dirname, '..', '..', '..', 'shared', 'advisories');

const LIMITS = { maxFileBytes: 4 << 20, maxTotalBytes: 1 << 30, maxRatio: 1000, ratioFloorBytes: 1 << 20, maxEntries: 100_000, maxPathBytes: 1024, maxPathDepth: 8, maxDirectories: 100_000 };

/** The advisories `ids` of one ecosystem's real bulk zip, by id. */
export async function realAdvisories(ecosystem: 'Go' | 'PyPI', ids: readonly string[]): Promise<Map<string, OsvAdvisory>> {
  const wanted = new Set(ids.map((id) => `${id}.json`));
  const found = new Map<string, OsvAdvisory>();
  await readZip(await readFile(join(ADVISORIES, ecosystem, 'all.zip')), LIMITS, (file) => {
    if (wanted.has(file.path.split('/').pop() ?? '') && file.bytes !== null) {
      const advisory = JSON.parse(file.bytes.toString('utf8')) as OsvAdvisory;
      found.set(advisory.id, advisory);
    }
    return Promise.resolve();
  });
  return found;
}

/**
 * GitHub's advisory for micromatch's ReDoS, in the shape of github/advisory-database's OSV
 * files (its own CVSS v3.1 vector, `database_specific.severity` and `cwe_ids`).
 */
export const MICROMATCH_GHSA: OsvAdvisory = {
  schema_version: '1.4.0',
  id: 'GHSA-952p-6rrq-rcjv',
  modified: '2024-08-30T21:05:44Z',
  published: '2024-05-14T15:30:28Z',
  aliases: ['CVE-2024-4067'],
  summary: 'Regular Expression Denial of Service (ReDoS) in micromatch',
  details: 'The NPM package `micromatch` prior to version 4.0.8 is vulnerable to Regular Expression Denial of Service (ReDoS).',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L' }],
  affected: [{ package: { ecosystem: 'npm', name: 'micromatch' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '4.0.8' }] }] }],
  references: [
    { type: 'ADVISORY', url: 'https://nvd.nist.gov/vuln/detail/CVE-2024-4067' },
    { type: 'PACKAGE', url: 'https://github.com/micromatch/micromatch' },
  ],
  database_specific: { cwe_ids: ['CWE-1333'], severity: 'MODERATE', github_reviewed: true },
};

/** Made up for the scoring of v2 and v4 vectors, which the real data here does not hold. */
export const SCORED_ONLY: OsvAdvisory = {
  id: 'PKGSCOPE-TEST-1',
  modified: '2026-01-02T03:04:05.678901Z',
  summary: 'A flaw scored in CVSS v2 and v4',
  severity: [
    { type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' },
    { type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N' },
  ],
  affected: [{ package: { ecosystem: 'npm', name: 'left-pad' }, versions: ['1.0.0'] }],
};

/** A label is all this one has: its rating is the label. */
export const LABEL_ONLY: OsvAdvisory = {
  id: 'GHSA-jjjj-jjjj-jjjj',
  modified: '2025-01-01T00:00:00Z',
  summary: 'Only a label',
  affected: [{ package: { ecosystem: 'npm', name: 'left-pad' }, versions: ['1.0.0'] }],
  database_specific: { severity: 'HIGH', cwe_ids: ['CWE-79', 'CWE-79', 'not-a-cwe'] },
};

function occurrence(ref: string, ecosystem: string, name: string, version: string | null, dependencies: string[] = []): Occurrence {
  return {
    ref,
    ecosystem,
    name,
    version,
    alias: null,
    installPath: '',
    lockfile: ecosystem === 'npm' ? 'web/package-lock.json' : ecosystem === 'golang' ? 'go.mod' : 'poetry.lock',
    source: version === null ? 'root' : 'registry',
    resolved: null,
    integrity: null,
    dev: false,
    optional: false,
    scopeKnown: true,
    peer: false,
    license: null,
    dependencies: dependencies.map((d) => ({ ref: d, kind: 'prod' as const })),
    facts: {},
  };
}

/**
 * A project with a Python, a Go and an npm part: requests 2.19.0 brings urllib3 1.24.1 (so
 * urllib3 is affected "through" requests), jinja2 2.10 is direct, golang.org/x/net is old.
 */
export function sampleInventory(): Inventory {
  const inventory = emptyInventory();
  inventory.occurrences.push(
    occurrence('app', 'pypi', 'app', null, ['pypi:requests@2.19.0', 'pypi:jinja2@2.10', 'golang:golang.org/x/net@v0.0.0-20180724234803-3673e40ba225', 'npm:micromatch@4.0.5', 'npm:left-pad@1.0.0']),
    occurrence('pypi:requests@2.19.0', 'pypi', 'requests', '2.19.0', ['pypi:urllib3@1.24.1']),
    occurrence('pypi:urllib3@1.24.1', 'pypi', 'urllib3', '1.24.1'),
    occurrence('pypi:jinja2@2.10', 'pypi', 'jinja2', '2.10'),
    occurrence('golang:golang.org/x/net@v0.0.0-20180724234803-3673e40ba225', 'golang', 'golang.org/x/net', 'v0.0.0-20180724234803-3673e40ba225'),
    occurrence('npm:micromatch@4.0.5', 'npm', 'micromatch', '4.0.5'),
    occurrence('npm:left-pad@1.0.0', 'npm', 'left-pad', '1.0.0'),
  );
  inventory.roots.push('app');
  inventory.lockfiles.push({ path: 'poetry.lock', kind: 'poetry.lock', version: '2.0', entries: 3 });
  return inventory;
}

export const PYPI_IDS = ['PYSEC-2019-217', 'PYSEC-2021-66', 'PYSEC-2019-132', 'PYSEC-2019-133', 'PYSEC-2023-192', 'PYSEC-2023-212'];
export const GO_IDS = ['GO-2020-0014', 'GO-2021-0238'];

/** The matches ADV-MATCH's matcher gives for the sample inventory, written out. */
export async function sampleReport(): Promise<VulnerabilityReport> {
  const pypi = await realAdvisories('PyPI', PYPI_IDS);
  const go = await realAdvisories('Go', GO_IDS);
  const get = (from: Map<string, OsvAdvisory>, id: string): OsvAdvisory => {
    const advisory = from.get(id);
    if (advisory === undefined) throw new Error(`${id} is not in the real data`);
    return advisory;
  };
  const match = (advisory: OsvAdvisory, ecosystem: string, ref: string, version: string, fixed: string[]): VulnerabilityMatch => ({
    advisory,
    ecosystem,
    aliases: [...(advisory.aliases ?? [])].sort(),
    affects: [{ ref, version, fixedVersions: fixed }],
  });
  return {
    matches: [
      match(get(pypi, 'PYSEC-2019-217'), 'PyPI', 'pypi:jinja2@2.10', '2.10', ['2.10.1']),
      match(get(pypi, 'PYSEC-2021-66'), 'PyPI', 'pypi:jinja2@2.10', '2.10', ['2.11.3']),
      match(get(pypi, 'PYSEC-2019-132'), 'PyPI', 'pypi:urllib3@1.24.1', '1.24.1', ['1.24.3']),
      match(get(pypi, 'PYSEC-2019-133'), 'PyPI', 'pypi:urllib3@1.24.1', '1.24.1', ['1.24.2']),
      match(get(pypi, 'PYSEC-2023-192'), 'PyPI', 'pypi:urllib3@1.24.1', '1.24.1', ['1.26.17', '2.0.6']),
      match(get(pypi, 'PYSEC-2023-212'), 'PyPI', 'pypi:urllib3@1.24.1', '1.24.1', ['1.26.18', '2.0.7']),
      match(get(go, 'GO-2020-0014'), 'Go', 'golang:golang.org/x/net@v0.0.0-20180724234803-3673e40ba225', 'v0.0.0-20180724234803-3673e40ba225', ['v0.0.0-20190125091013-d26f9f9a57f3']),
      match(get(go, 'GO-2021-0238'), 'Go', 'golang:golang.org/x/net@v0.0.0-20180724234803-3673e40ba225', 'v0.0.0-20180724234803-3673e40ba225', ['v0.0.0-20210520170846-37e1c6afe023']),
      match(MICROMATCH_GHSA, 'npm', 'npm:micromatch@4.0.5', '4.0.5', ['4.0.8']),
      match(SCORED_ONLY, 'npm', 'npm:left-pad@1.0.0', '1.0.0', []),
      match(LABEL_ONLY, 'npm', 'npm:left-pad@1.0.0', '1.0.0', []),
    ],
    snapshots: [
      { ecosystem: 'PyPI', advisories: 2661, modifiedMax: '2024-10-10T00:00:00Z', syncedAt: '2026-11-27T18:00:00Z' },
      { ecosystem: 'Go', advisories: 4291, modifiedMax: '2026-08-21T00:00:00Z', syncedAt: '2026-11-27T18:00:00Z' },
      { ecosystem: 'npm', advisories: 0, modifiedMax: null, syncedAt: null },
    ],
  };
}

const PURL_TYPES: Readonly<Record<string, string>> = { pypi: 'pypi', golang: 'golang', npm: 'npm' };

export function renderInput(inventory: Inventory, vulnerabilities: VulnerabilityReport | undefined): RenderInput {
  return {
    inventory,
    metadata: new Map(),
    failedCoordinates: [],
    evidence: evidenceOf(inventory, []),
    generatedAt: new Date('2026-11-27T19:00:00Z'),
    purl: (o) => (o.version === null ? null : `pkg:${PURL_TYPES[o.ecosystem] ?? o.ecosystem}/${o.name}@${o.version}`),
    ...(vulnerabilities === undefined ? {} : { vulnerabilities }),
  };
}
