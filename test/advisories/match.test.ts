import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { goVersionOf, matchVulnerabilities, primaryOf, type MatchedOccurrence } from '../../src/advisories/match/index.js';
import type { OsvAdvisory, VulnerabilityReport } from '../../src/advisories/types.js';
import { FIXTURE_ADVISORIES, memoryLookup, readDocuments, SHARED_ADVISORIES, type MemoryLookup } from './match-lookup.js';

let n = 0;
function registry(ecosystem: string, name: string, version: string): MatchedOccurrence {
  return { ref: `${ecosystem}:${name}@${version}#${++n}`, ecosystem, name, version, source: 'registry', resolved: null, facts: {} };
}

const ids = (report: VulnerabilityReport): string[] => report.matches.map((m) => m.advisory.id);
const idsOf = (report: VulnerabilityReport, ref: string): string[] => report.matches.filter((m) => m.affects.some((a) => a.ref === ref)).map((m) => m.advisory.id);
const fixesOf = (report: VulnerabilityReport, id: string, ref: string): readonly string[] | undefined =>
  report.matches.find((m) => m.advisory.id === id)?.affects.find((a) => a.ref === ref)?.fixedVersions;

describe('matching against the real Go and PyPI dumps', () => {
  let go: MemoryLookup;
  let pypi: MemoryLookup;
  beforeAll(async () => {
    go = memoryLookup(await readDocuments([join(SHARED_ADVISORIES, 'Go', 'all.zip')]));
    pypi = memoryLookup(await readDocuments([join(SHARED_ADVISORIES, 'PyPI', 'all.zip')]));
  }, 60_000);

  it('golang.org/x/net: each version is affected by the advisories whose ranges hold it, with the nearest fix', async () => {
    const v7 = registry('golang', 'golang.org/x/net', 'v0.7.0');
    const v17 = registry('golang', 'golang.org/x/net', 'v0.17.0');
    const v23 = registry('golang', 'golang.org/x/net', 'v0.23.0');
    const report = await matchVulnerabilities([v7, v17, v23], go);
    // Counts from an independent evaluation of the same dump (a Python reading of OSV's pseudo-code).
    expect(idsOf(report, v7.ref)).toHaveLength(16);
    expect(idsOf(report, v17.ref)).toHaveLength(14);
    expect(idsOf(report, v23.ref)).toHaveLength(13);
    // GO-2023-1571 is fixed in 0.7.0 (fixed is exclusive); GO-2023-1988 in 0.13.0; GO-2024-2687 in 0.23.0.
    expect(idsOf(report, v7.ref)).not.toContain('GO-2023-1571');
    expect(idsOf(report, v7.ref)).toContain('GO-2023-1988');
    expect(fixesOf(report, 'GO-2023-1988', v7.ref)).toEqual(['0.13.0']);
    expect(idsOf(report, v17.ref)).not.toContain('GO-2023-2102');
    expect(idsOf(report, v17.ref)).toContain('GO-2024-2687');
    expect(idsOf(report, v23.ref)).not.toContain('GO-2024-2687');
    const match = report.matches.find((m) => m.advisory.id === 'GO-2024-2687');
    expect(match?.ecosystem).toBe('Go');
    expect(match?.aliases).toContain('CVE-2023-45288');
    expect(report.snapshots.find((s) => s.ecosystem === 'Go')?.advisories).toBeGreaterThan(4000);
  });

  it('a go.mod root matches stdlib and toolchain advisories at its toolchain (else go) version, pre-release bounds included', async () => {
    const root = (facts: Record<string, string>): MatchedOccurrence => ({ ref: `root${++n}`, ecosystem: 'golang', name: 'example.com/app', version: null, source: 'root', resolved: null, facts });
    const withToolchain = root({ go: '1.21', toolchain: 'go1.22.1' });
    const goOnly = root({ go: '1.21.0' });
    const none = root({});
    const report = await matchVulnerabilities([withToolchain, goOnly, none], go);
    // 63 stdlib and 12 toolchain advisories hold 1.22.1; 75 stdlib ones hold 1.21.0 (independent count).
    expect(idsOf(report, withToolchain.ref)).toHaveLength(63 + 12);
    expect(idsOf(report, goOnly.ref)).toHaveLength(75 + report.matches.filter((m) => m.advisory.affected?.some((a) => a.package?.name === 'toolchain') && m.affects.some((a) => a.ref === goOnly.ref)).length);
    expect(idsOf(report, none.ref)).toEqual([]);
    // GO-2024-2687 (HTTP/2 CONTINUATION): fixed in 1.21.9 and 1.22.2; 1.22.1 sits in the 1.22.0-0 range.
    expect(fixesOf(report, 'GO-2024-2687', withToolchain.ref)).toEqual(['1.22.2']);
    expect(report.matches.find((m) => m.advisory.id === 'GO-2024-2687')?.affects.find((a) => a.ref === withToolchain.ref)?.version).toBe('1.22.1');
  });

  it('go directive versions read as OSV writes Go releases', () => {
    expect(goVersionOf('1.21')).toBe('1.21.0');
    expect(goVersionOf('go1.22.1')).toBe('1.22.1');
    expect(goVersionOf('1.21rc2')).toBe('1.21.0-rc.2');
    expect(goVersionOf('default')).toBeNull();
  });

  it('jinja2 2.10 is affected (ranges, PEP 503 name), 3.1.4 is not', async () => {
    const old = registry('pypi', 'Jinja2', '2.10');
    const current = registry('pypi', 'jinja2', '3.1.4');
    const report = await matchVulnerabilities([old, current], pypi);
    expect(idsOf(report, old.ref)).toEqual(['PYSEC-2019-217', 'PYSEC-2021-66']);
    expect(fixesOf(report, 'PYSEC-2019-217', old.ref)).toEqual(['2.10.1']);
    expect(fixesOf(report, 'PYSEC-2021-66', old.ref)).toEqual(['2.11.3']);
    expect(idsOf(report, current.ref)).toEqual([]);
    expect(report.matches.find((m) => m.advisory.id === 'PYSEC-2019-217')?.aliases).toEqual(['CVE-2019-10906', 'GHSA-462w-v97r-4m45']);
  });

  it('other PyPI packages agree with the independent evaluation; withdrawn advisories never match', async () => {
    const django = registry('pypi', 'Django', '3.2.0');
    const pillow = registry('pypi', 'Pillow', '9.0.0');
    const urllib3 = registry('pypi', 'urllib3', '1.26.4');
    const selenium = registry('pypi', 'selenium', '1.0.1');
    const report = await matchVulnerabilities([django, pillow, urllib3, selenium], pypi);
    expect(idsOf(report, django.ref)).toHaveLength(25);
    expect(idsOf(report, pillow.ref)).toEqual(['PYSEC-2022-168', 'PYSEC-2022-42979', 'PYSEC-2023-175', 'PYSEC-2023-227']);
    expect(idsOf(report, urllib3.ref)).toEqual(['PYSEC-2021-108', 'PYSEC-2023-192', 'PYSEC-2023-212']);
    // PYSEC-2023-101 lists selenium 1.0.1 but was withdrawn.
    expect(ids(report)).not.toContain('PYSEC-2023-101');
  });

  it('an advisory and its alias record are one vulnerability, under the database id', async () => {
    const [pysec] = await pypi.byPackages('PyPI', ['jinja2']).then((all) => all.filter((d) => d.id === 'PYSEC-2019-217'));
    expect(pysec).toBeDefined();
    const ghsa: OsvAdvisory = { ...(pysec as OsvAdvisory), id: 'GHSA-462w-v97r-4m45', aliases: ['CVE-2019-10906'] };
    const old = registry('pypi', 'jinja2', '2.10');
    const report = await matchVulnerabilities([old], memoryLookup([pysec as OsvAdvisory, ghsa]));
    expect(ids(report)).toEqual(['PYSEC-2019-217']);
    expect(report.matches[0]?.aliases).toEqual(['CVE-2019-10906', 'GHSA-462w-v97r-4m45']);
    expect(report.matches[0]?.affects.map((a) => a.ref)).toEqual([old.ref]);
  });
});

describe('matching the other ecosystems (fixtures from real advisories)', () => {
  let lookup: MemoryLookup;
  beforeAll(async () => {
    const folders = ['npm', 'Maven', 'RubyGems', 'NuGet', 'Packagist', 'Pub', 'Hex', 'crates.io'].map((e) => join(FIXTURE_ADVISORIES, e));
    lookup = memoryLookup(await readDocuments(folders));
  });

  const cases: [string, string, string, string, readonly string[] | null][] = [
    // [purl type, name, version, advisory, nearest fixed (null: not affected)]
    ['npm', 'lodash', '4.17.20', 'GHSA-35jh-r3h4-6jhm', ['4.17.21']],
    ['npm', 'lodash', '4.17.21', 'GHSA-35jh-r3h4-6jhm', null],
    ['npm', 'lodash-es', '4.17.15', 'GHSA-35jh-r3h4-6jhm', ['4.17.21']],
    ['maven', 'org.apache.logging.log4j:log4j-core', '2.14.1', 'GHSA-jfh8-c2jp-5v3q', ['2.15.0']],
    ['maven', 'org.apache.logging.log4j:log4j-core', '2.0-beta9', 'GHSA-jfh8-c2jp-5v3q', ['2.3.1']],
    ['maven', 'org.apache.logging.log4j:log4j-core', '2.12.1', 'GHSA-jfh8-c2jp-5v3q', ['2.12.2']],
    ['maven', 'org.apache.logging.log4j:log4j-core', '2.12.2', 'GHSA-jfh8-c2jp-5v3q', null],
    ['maven', 'org.apache.logging.log4j:log4j-core', '2.3.1', 'GHSA-jfh8-c2jp-5v3q', null],
    ['maven', 'org.apache.logging.log4j:log4j-core', '2.17.1', 'GHSA-jfh8-c2jp-5v3q', null],
    ['gem', 'nokogiri', '1.13.3', 'GHSA-crjr-9rc5-ghw8', ['1.13.4']],
    ['gem', 'nokogiri', '1.13.4.rc1', 'GHSA-crjr-9rc5-ghw8', ['1.13.4']],
    ['gem', 'nokogiri', '1.13.4', 'GHSA-crjr-9rc5-ghw8', null],
    ['nuget', 'newtonsoft.json', '12.0.3', 'GHSA-5crp-9r3c-p9vr', ['13.0.1']],
    ['nuget', 'Newtonsoft.Json', '13.0.1', 'GHSA-5crp-9r3c-p9vr', null],
    ['composer', 'guzzlehttp/guzzle', '6.5.6', 'GHSA-w248-ffj2-4v5q', ['6.5.7']],
    ['composer', 'guzzlehttp/guzzle', 'v7.4.3', 'GHSA-w248-ffj2-4v5q', ['7.4.4']],
    ['composer', 'guzzlehttp/guzzle', '3.8.1', 'GHSA-w248-ffj2-4v5q', null],
    ['composer', 'guzzlehttp/guzzle', '7.4.4', 'GHSA-w248-ffj2-4v5q', null],
    ['pub', 'http', '0.13.2', 'GHSA-4rgh-jx4f-qfcq', ['0.13.3']],
    ['pub', 'http', '0.13.3', 'GHSA-4rgh-jx4f-qfcq', null],
    ['hex', 'oidcc', '3.1.1', 'GHSA-mj35-2rgf-cv8p', ['3.1.2']],
    ['hex', 'oidcc', '3.2.0-beta.2', 'GHSA-mj35-2rgf-cv8p', ['3.2.0-beta.3']],
    ['hex', 'oidcc', '3.2.0', 'GHSA-mj35-2rgf-cv8p', null],
    ['hex', 'oidcc', '2.9.0', 'GHSA-mj35-2rgf-cv8p', null],
    ['cargo', 'time', '0.1.44', 'RUSTSEC-2020-0071', ['0.2.0']],
    ['cargo', 'time', '0.2.6', 'RUSTSEC-2020-0071', null],
    ['cargo', 'time', '0.2.22', 'RUSTSEC-2020-0071', ['0.2.23']],
    ['cargo', 'time', '0.3.0', 'RUSTSEC-2020-0071', null],
  ];

  it.each(cases)('%s %s %s: %s → %j', async (type, name, version, id, fixed) => {
    const o = registry(type, name, version);
    const report = await matchVulnerabilities([o], lookup);
    if (fixed === null) expect(idsOf(report, o.ref)).not.toContain(id);
    else expect(fixesOf(report, id, o.ref)).toEqual(fixed);
  });

  it('RustSec and GitHub records of CVE-2020-26235 fold under RUSTSEC-2020-0071 with one occurrence and its fix', async () => {
    const o = registry('cargo', 'time', '0.2.22');
    const report = await matchVulnerabilities([o], lookup);
    expect(ids(report)).toEqual(['RUSTSEC-2020-0071']);
    expect(report.matches[0]?.aliases).toEqual(['CVE-2020-26235', 'GHSA-wcg3-cvx6-7396']);
    expect(report.matches[0]?.affects).toEqual([{ ref: o.ref, version: '0.2.22', fixedVersions: ['0.2.23'] }]);
  });

  it('one advisory affecting several occurrences lists each of them once', async () => {
    const a = registry('npm', 'lodash', '4.17.20');
    const b = registry('npm', 'lodash', '4.17.20');
    const c = registry('npm', 'lodash-es', '4.17.20');
    const report = await matchVulnerabilities([a, b, c], lookup);
    expect(report.matches).toHaveLength(1);
    expect(report.matches[0]?.affects.map((x) => x.ref).sort()).toEqual([a.ref, b.ref, c.ref].sort());
  });

  it('an entry naming another repository of the ecosystem (Maven:https://maven.google.com) is matched by its name', async () => {
    const google: OsvAdvisory = {
      id: 'GHSA-test-google',
      modified: '2024-01-01T00:00:00Z',
      affected: [{ package: { ecosystem: 'Maven:https://maven.google.com', name: 'androidx.core:core' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.9.0' }] }] }],
    };
    const o = registry('maven', 'androidx.core:core', '1.8.0');
    const fixedOne = registry('maven', 'androidx.core:core', '1.9.0');
    // As the store answers: indexed under the base ecosystem.
    const lookup = { byPackages: () => Promise.resolve([google]), snapshots: () => Promise.resolve([]) };
    const report = await matchVulnerabilities([o, fixedOne], lookup);
    expect(report.matches[0]?.affects).toEqual([{ ref: o.ref, version: '1.8.0', fixedVersions: ['1.9.0'] }]);
  });

  it('files, links and workspace members are not matched; registry names only in their own ecosystem', async () => {
    const file: MatchedOccurrence = { ...registry('npm', 'lodash', '4.17.20'), source: 'file' };
    const pypiLodash = registry('pypi', 'lodash', '4.17.20');
    const report = await matchVulnerabilities([file, pypiLodash], lookup);
    expect(report.matches).toEqual([]);
  });
});

describe('OSV evaluation rules', () => {
  const doc = (ranges: OsvAdvisory['affected'], extra: Partial<OsvAdvisory> = {}): OsvAdvisory => ({ id: 'TEST-1', modified: '2024-01-01T00:00:00Z', affected: ranges, ...extra });
  const pkg = { ecosystem: 'npm', name: 'x' };
  const check = async (advisory: OsvAdvisory, version: string): Promise<readonly string[] | null> => {
    const o = registry('npm', 'x', version);
    const report = await matchVulnerabilities([o], memoryLookup([advisory]));
    return report.matches[0]?.affects[0]?.fixedVersions ?? null;
  };

  it('last_affected is inclusive, fixed exclusive, introduced "0" from the start', async () => {
    const last = doc([{ package: pkg, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { last_affected: '2.1.214' }] }] }]);
    expect(await check(last, '2.1.214')).toEqual([]);
    expect(await check(last, '0.0.1')).toEqual([]);
    expect(await check(last, '2.1.215')).toBeNull();
    const fixed = doc([{ package: pkg, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.1.214' }] }] }]);
    expect(await check(fixed, '2.1.213')).toEqual(['2.1.214']);
    expect(await check(fixed, '2.1.214')).toBeNull();
  });

  it('events are sorted before evaluation; several intervals in one range', async () => {
    const unsorted = doc([{ package: pkg, ranges: [{ type: 'SEMVER', events: [{ fixed: '3.2.5' }, { introduced: '3.0.0' }, { fixed: '1.0.2' }, { introduced: '1.0.0' }] }] }]);
    expect(await check(unsorted, '1.0.1')).toEqual(['1.0.2']);
    expect(await check(unsorted, '2.0.0')).toBeNull();
    expect(await check(unsorted, '3.1.0')).toEqual(['3.2.5']);
    expect(await check(unsorted, '3.2.5')).toBeNull();
  });

  it('limit events bound the range (any limit above the version), * is infinity', async () => {
    const limited = doc([{ package: pkg, ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { limit: '1.5.0' }] }] }]);
    expect(await check(limited, '1.4.9')).toEqual([]);
    expect(await check(limited, '1.5.0')).toBeNull();
    const star = doc([{ package: pkg, ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { limit: '*' }] }] }]);
    expect(await check(star, '9.0.0')).toEqual([]);
  });

  it('versions lists match exactly; withdrawn never; GIT ranges never for a registry version', async () => {
    const listed = doc([{ package: pkg, versions: ['1.2.3'], ranges: [{ type: 'GIT', repo: 'https://example.com/x.git', events: [{ introduced: '0' }, { fixed: 'a'.repeat(40) }] }] }]);
    expect(await check(listed, '1.2.3')).toEqual([]);
    expect(await check(listed, '1.2.4')).toBeNull();
    expect(await check({ ...listed, withdrawn: '2024-02-01T00:00:00Z' }, '1.2.3')).toBeNull();
  });

  it('a git dependency matches a GIT range only at an introduced or last_affected commit', async () => {
    const commit = '0123456789abcdef0123456789abcdef01234567';
    const advisory = doc([{ package: pkg, ranges: [{ type: 'GIT', repo: 'https://example.com/x.git', events: [{ introduced: commit }, { fixed: 'f'.repeat(40) }] }, { type: 'SEMVER', events: [{ introduced: '0' }] }] }]);
    const git = (resolved: string, version: string | null): MatchedOccurrence => ({ ref: `git${++n}`, ecosystem: 'npm', name: 'x', version, source: 'git', resolved, facts: {} });
    const atCommit = git(`git+https://example.com/x.git#${commit}`, '1.0.0');
    const elsewhere = git(`git+https://example.com/x.git#${'e'.repeat(40)}`, '1.0.0');
    const noCommit = git('git+https://example.com/x.git#main', '1.0.0');
    const report = await matchVulnerabilities([atCommit, elsewhere, noCommit], memoryLookup([advisory]));
    expect(report.matches[0]?.affects.map((a) => a.ref)).toEqual([atCommit.ref]);
  });

  it('the primary id is the database record, else the first CVE/GHSA id', () => {
    expect(primaryOf(['GHSA-462w-v97r-4m45', 'PYSEC-2019-217', 'CVE-2019-10906'])).toBe('PYSEC-2019-217');
    expect(primaryOf(['RUSTSEC-2020-0071', 'GO-2020-0001'])).toBe('GO-2020-0001');
    expect(primaryOf(['GHSA-aaaa-bbbb-cccc', 'CVE-2020-1'])).toBe('CVE-2020-1');
  });

  it('no lookup call is made for an inventory with nothing to match', async () => {
    const lookup = memoryLookup([]);
    const report = await matchVulnerabilities([{ ...registry('npm', 'x', '1.0.0'), source: 'workspace' }], lookup);
    expect(lookup.calls()).toBe(0);
    expect(report).toEqual({ matches: [], snapshots: [] });
  });
});
