import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scoreCvss } from '../../src/advisories/cvss.js';
import { fitTime } from '../../src/advisories/render/facts.js';
import type { VulnerabilityReport } from '../../src/advisories/types.js';
import { renderCycloneDx } from '../../src/sbom/render/cyclonedx.js';
import { BoundedOutput } from '../../src/sbom/render/output.js';
import { renderSpdx } from '../../src/sbom/render/spdx.js';
import { renderText } from '../../src/sbom/render/text.js';
import { cycloneDxProblems, validateCycloneDx } from '../../src/sbom/validate/cyclonedx.js';
import { spdxProblems } from '../../src/sbom/validate/spdx.js';
import { officialSpdxSchema } from '../helpers/spdx-schema.js';
import { renderInput, sampleInventory, sampleReport } from './render-fixtures.js';

const run = promisify(execFile);

type Json = Record<string, unknown>;

describe('CVSS scores (FIRST formulas, through ae-cvss-calculator)', () => {
  it('scores v2, v3.0, v3.1 and v4.0 base vectors with their severities and CycloneDX methods', () => {
    expect(scoreCvss('AV:N/AC:L/Au:N/C:P/I:P/A:P')).toEqual({ method: 'CVSSv2', vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P', score: 7.5, severity: 'high' });
    expect(scoreCvss('(AV:N/AC:L/Au:N/C:N/I:N/A:P)')).toMatchObject({ method: 'CVSSv2', score: 5, severity: 'medium' });
    expect(scoreCvss('CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N')).toMatchObject({ method: 'CVSSv3', score: 6.1, severity: 'medium' });
    expect(scoreCvss('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toMatchObject({ method: 'CVSSv31', score: 9.8, severity: 'critical' });
    // Worked by hand from the v3.1 specification: 8.22·0.85·0.77·0.62·0.85 + 6.42·(1 − 0.44²) = 8.01 → 8.1.
    expect(scoreCvss('CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:N')).toMatchObject({ score: 8.1, severity: 'high' });
    expect(scoreCvss('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N')).toMatchObject({ score: 0, severity: 'none' });
    expect(scoreCvss('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N')).toMatchObject({ method: 'CVSSv4', score: 9.3, severity: 'critical' });
    expect(scoreCvss('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H')).toMatchObject({ score: 10 });
    // v4's base score is CVSS-B: threat metrics given with the vector do not change it.
    expect(scoreCvss('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:U')).toMatchObject({ score: 9.3 });
  });

  it('gives no score to a vector lacking a base metric, holding an undefined value, or of no known version', () => {
    expect(scoreCvss('CVSS:3.1/AV:N/AC:L')).toMatchObject({ method: 'CVSSv31', score: null, severity: 'unknown' });
    expect(scoreCvss('CVSS:3.1/AV:Q/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toMatchObject({ score: null, severity: 'unknown' });
    expect(scoreCvss('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:X')).toMatchObject({ score: null });
    expect(scoreCvss('CVSS:3.1/AV:N/AV:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toMatchObject({ score: null });
    expect(scoreCvss('CVSS:5.0/AV:N')).toBeNull();
    expect(scoreCvss('high')).toBeNull();
  });

  it('writes OSV times as RFC 3339 in whole seconds, and nothing for what is no time', () => {
    expect(fitTime('2026-01-02T03:04:05.678901Z')).toBe('2026-01-02T03:04:05Z');
    expect(fitTime('2021-05-18T15:32:31+02:00')).toBe('2021-05-18T13:32:31Z');
    expect(fitTime('yesterday')).toBeNull();
    expect(fitTime('99999-01-01T00:00:00Z')).toBeNull();
    expect(fitTime(42)).toBeNull();
    expect(fitTime('0001-01-01T00:00:00Z')).toBeNull();
  });
});

describe('vulnerabilities in the three formats, from real OSV advisories (PyPI and Go zips)', () => {
  let report: VulnerabilityReport;
  let cdx: Json;
  let cdxText: string;
  let dir: string;

  beforeAll(async () => {
    report = await sampleReport();
    const out = new BoundedOutput();
    const written = renderCycloneDx(renderInput(sampleInventory(), report), out);
    cdxText = out.toString();
    // The production validator, given what was written.
    validateCycloneDx(cdxText, written);
    cdx = JSON.parse(cdxText) as Json;
    dir = await mkdtemp(join(tmpdir(), 'pkgscope-adv-render-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const vulnerability = (id: string): Json => {
    const found = (cdx['vulnerabilities'] as Json[]).find((v) => v['id'] === id);
    if (found === undefined) throw new Error(`${id} not written`);
    return found;
  };

  it('writes one CycloneDX vulnerability per advisory, worst first, with source, aliases, ratings, CWEs, texts, links, dates, affects and the fix', () => {
    const ids = (cdx['vulnerabilities'] as Json[]).map((v) => v['id']);
    expect(ids).toEqual([
      // critical: v4 9.3 (with v2 7.5 beside it)
      'PKGSCOPE-TEST-1',
      // high: 8.1, then the label alone
      'PYSEC-2023-192',
      'GHSA-jjjj-jjjj-jjjj',
      // medium: 5.3, 4.2
      'GHSA-952p-6rrq-rcjv',
      'PYSEC-2023-212',
      // no severity in the advisory: by id
      'GO-2020-0014',
      'GO-2021-0238',
      'PYSEC-2019-132',
      'PYSEC-2019-133',
      'PYSEC-2019-217',
      'PYSEC-2021-66',
    ]);
    expect(vulnerability('PYSEC-2019-217')).toEqual({
      'bom-ref': 'vulnerability:PYSEC-2019-217',
      id: 'PYSEC-2019-217',
      source: { name: 'OSV', url: 'https://osv.dev/vulnerability/PYSEC-2019-217' },
      references: [
        { id: 'CVE-2019-10906', source: { name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-2019-10906' } },
        { id: 'GHSA-462w-v97r-4m45', source: { name: 'GitHub', url: 'https://github.com/advisories/GHSA-462w-v97r-4m45' } },
      ],
      detail: 'In Pallets Jinja before 2.10.1, str.format_map allows a sandbox escape.',
      recommendation: 'jinja2 2.10: upgrade to 2.10.1',
      advisories: expect.arrayContaining([{ url: expect.stringMatching(/^https:\/\//) as unknown }]) as unknown,
      published: expect.stringMatching(/^2019-04-\d\dT\d\d:\d\d:\d\dZ$/) as unknown,
      updated: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as unknown,
      affects: [{ ref: 'pypi:jinja2@2.10', versions: [{ version: '2.10', status: 'affected' }] }],
    });
    expect(vulnerability('PYSEC-2023-192')['ratings']).toEqual([{ score: 8.1, severity: 'high', method: 'CVSSv31', vector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:N' }]);
    expect(vulnerability('PYSEC-2023-192')['recommendation']).toBe('urllib3 1.24.1: upgrade to 1.26.17 or 2.0.6');
    expect(vulnerability('PKGSCOPE-TEST-1')).toMatchObject({
      ratings: [
        { score: 7.5, severity: 'high', method: 'CVSSv2', vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' },
        { score: 9.3, severity: 'critical', method: 'CVSSv4', vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N' },
      ],
      updated: '2026-01-02T03:04:05Z',
    });
    expect(vulnerability('PKGSCOPE-TEST-1')['recommendation']).toBeUndefined();
    // GitHub's label stands beside a CVSS vector only where there is none.
    expect(vulnerability('GHSA-952p-6rrq-rcjv')).toMatchObject({
      ratings: [{ score: 5.3, severity: 'medium', method: 'CVSSv31' }],
      cwes: [1333],
      description: 'Regular Expression Denial of Service (ReDoS) in micromatch',
      references: [{ id: 'CVE-2024-4067', source: { name: 'NVD' } }],
      recommendation: 'micromatch 4.0.5: upgrade to 4.0.8',
    });
    expect(vulnerability('GHSA-jjjj-jjjj-jjjj')).toMatchObject({ ratings: [{ severity: 'high', method: 'other', justification: 'severity "HIGH" given by the advisory database' }], cwes: [79] });
    expect(vulnerability('GHSA-jjjj-jjjj-jjjj')['ratings']).toEqual([expect.not.objectContaining({ score: expect.anything() as unknown })]);
    // Go's advisories: summary, details and the fixed pseudo-version.
    expect(vulnerability('GO-2020-0014')).toMatchObject({
      description: 'Infinite loop due to improper handling of "select" tags in golang.org/x/net/html',
      recommendation: 'golang.org/x/net v0.0.0-20180724234803-3673e40ba225: upgrade to v0.0.0-20190125091013-d26f9f9a57f3',
      affects: [{ ref: 'golang:golang.org/x/net@v0.0.0-20180724234803-3673e40ba225' }],
    });
    expect(vulnerability('GO-2020-0014')['ratings']).toBeUndefined();
    // Go's vulndb writes the zero time as `modified`: no date rather than year 1.
    expect(vulnerability('GO-2020-0014')['updated']).toBeUndefined();
    // Every affects ref is a component's bom-ref; every vulnerability's bom-ref is unique.
    const refs = new Set([(cdx['metadata'] as Json)['component'] as Json, ...(cdx['components'] as Json[])].map((c) => c['bom-ref']));
    for (const v of cdx['vulnerabilities'] as Json[]) for (const a of v['affects'] as Json[]) expect(refs.has(a['ref'])).toBe(true);
    const vulnRefs = (cdx['vulnerabilities'] as Json[]).map((v) => v['bom-ref']);
    expect(new Set([...vulnRefs, ...refs]).size).toBe(vulnRefs.length + refs.size);
  });

  it('states the advisory snapshot as evidence (service:advisories), in CycloneDX and in SPDX', () => {
    const property = (cdx['properties'] as Json[]).find((p) => p['name'] === 'service:advisories');
    expect(JSON.parse(property?.['value'] as string)).toEqual([
      { ecosystem: 'Go', advisories: 4291, modified_max: '2026-08-21T00:00:00Z', synced_at: '2026-11-27T18:00:00Z', state: 'ready' },
      { ecosystem: 'PyPI', advisories: 2661, modified_max: '2024-10-10T00:00:00Z', synced_at: '2026-11-27T18:00:00Z', state: 'ready' },
      { ecosystem: 'npm', advisories: 0, modified_max: null, synced_at: null, state: 'empty' },
    ]);
    const out = new BoundedOutput();
    renderSpdx(renderInput(sampleInventory(), report), out);
    const spdx = JSON.parse(out.toString()) as Json;
    expect((spdx['creationInfo'] as Json)['comment']).toContain('service:advisories=[{"ecosystem":"Go","advisories":4291');
    // An ecosystem with no advisories loaded is stated, empty, in SPDX and in text too.
    expect((spdx['creationInfo'] as Json)['comment']).toContain('{"ecosystem":"npm","advisories":0,"modified_max":null,"synced_at":null,"state":"empty"}');
    const text = new BoundedOutput();
    renderText(renderInput(sampleInventory(), report), text);
    expect(text.toString()).toMatch(/npm 0 \(empty, synced never\)/);
  });

  it('writes nothing of the kind when vulnerabilities were not asked for', () => {
    const out = new BoundedOutput();
    renderCycloneDx(renderInput(sampleInventory(), undefined), out);
    const plain = JSON.parse(out.toString()) as Json;
    expect(plain['vulnerabilities']).toBeUndefined();
    expect((plain['properties'] as Json[]).map((p) => p['name'])).not.toContain('service:advisories');
    const text = new BoundedOutput();
    renderText(renderInput(sampleInventory(), undefined), text);
    expect(text.toString()).not.toContain('Vulnerabilities');
  });

  it('writes an SPDX SECURITY/advisory reference per matched advisory on each affected package, valid by both SPDX schemas', () => {
    const out = new BoundedOutput();
    renderSpdx(renderInput(sampleInventory(), report), out);
    const spdx = JSON.parse(out.toString()) as Json;
    expect(spdxProblems(spdx)).toEqual({ schema: [], content: [] });
    expect(officialSpdxSchema(spdx), JSON.stringify(officialSpdxSchema.errors)).toBe(true);
    const advisoryRefs = (name: string): unknown[] =>
      (((spdx['packages'] as Json[]).find((p) => p['name'] === name)?.['externalRefs'] as Json[] | undefined) ?? []).filter((r) => r['referenceCategory'] === 'SECURITY');
    expect(advisoryRefs('urllib3')).toEqual(
      ['PYSEC-2023-192', 'PYSEC-2023-212', 'PYSEC-2019-132', 'PYSEC-2019-133'].map((id) => ({ referenceCategory: 'SECURITY', referenceType: 'advisory', referenceLocator: `https://osv.dev/vulnerability/${id}` })),
    );
    expect(advisoryRefs('jinja2')).toHaveLength(2);
    expect(advisoryRefs('requests')).toEqual([]);
    // The purl reference stays.
    expect((spdx['packages'] as Json[]).find((p) => p['name'] === 'urllib3')?.['externalRefs']).toContainEqual({ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:pypi/urllib3@1.24.1' });
  });

  it('writes a text section sorted by severity, then id, with the fixes and the snapshot, within 120 columns', () => {
    const out = new BoundedOutput();
    renderText(renderInput(sampleInventory(), report), out);
    const lines = out.toString().split('\n');
    const start = lines.findIndex((l) => l.startsWith('Vulnerabilities:'));
    expect(lines[start]).toBe('Vulnerabilities: 11 (1 critical, 2 high, 2 medium, 6 unknown)');
    expect(lines[start + 1]).toMatch(/^SEVERITY\s+ID\s+SCORE\s+COMPONENT\s+FIXED IN\s+SUMMARY$/);
    const rows = lines.slice(start + 2).filter((l) => /^(critical|high|medium|low|none|unknown) /.test(l));
    expect(rows.map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'critical PKGSCOPE-TEST-1',
      'high PYSEC-2023-192',
      'high GHSA-jjjj-jjjj-jjjj',
      'medium GHSA-952p-6rrq-rcjv',
      'medium PYSEC-2023-212',
      'unknown GO-2020-0014',
      'unknown GO-2021-0238',
      'unknown PYSEC-2019-132',
      'unknown PYSEC-2019-133',
      'unknown PYSEC-2019-217',
      'unknown PYSEC-2021-66',
    ]);
    expect(rows.find((l) => l.includes('PYSEC-2019-217'))).toMatch(/jinja2 2\.10\s+2\.10\.1\s/);
    const snapshot = lines.slice(lines.findIndex((l) => l.startsWith('Advisories matched against:'))).join(' ').replace(/\s+/g, ' ');
    expect(snapshot).toContain('Advisories matched against: Go 4,291 (newest 2026-08-21T00:00:00Z, synced 2026-11-27T18:00:00Z); PyPI 2,661 (newest 2024-10-10T00:00:00Z');
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(120);
  });

  it('passes cdx-validate --strict', async () => {
    const file = join(dir, 'vulnerable.cdx.json');
    await writeFile(file, cdxText);
    const script = join(import.meta.dirname, '..', 'helpers', 'cdx-validate-many.ts');
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script, file], { maxBuffer: 16 * 1024 * 1024 });
    const [result] = JSON.parse(stdout) as { schemaValid: boolean; deepValid: boolean; fails: boolean; said: string[] }[];
    expect(result).toMatchObject({ schemaValid: true, deepValid: true, fails: false });
    expect(cycloneDxProblems(cdxText)).toEqual([]);
  }, 120_000);
});
