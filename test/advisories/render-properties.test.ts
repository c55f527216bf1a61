import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OsvAdvisory, VulnerabilityMatch, VulnerabilityReport } from '../../src/advisories/types.js';
import { renderCycloneDx } from '../../src/sbom/render/cyclonedx.js';
import { BoundedOutput } from '../../src/sbom/render/output.js';
import { renderSpdx } from '../../src/sbom/render/spdx.js';
import { renderText } from '../../src/sbom/render/text.js';
import { cycloneDxProblems } from '../../src/sbom/validate/cyclonedx.js';
import { spdxProblems } from '../../src/sbom/validate/spdx.js';
import { officialSpdxSchema } from '../helpers/spdx-schema.js';
import { renderInput, sampleInventory } from './render-fixtures.js';

/**
 * Property: whatever an OSV advisory holds — the schema's shapes with hostile text in every free
 * field (control characters, unpaired surrogates, line breaks, emoji, links good and bad, huge
 * values), vectors well-formed or not, labels, CWE ids, dates of any kind — and whatever the
 * matcher says of versions and fixes, the three renderers write documents the production
 * validators (and the official SPDX schema) accept. Seeded, so a failure replays.
 */

const RUNS = 80;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

const TRICKY = [
  '',
  ' ',
  '\u0000',
  'a\nb',
  'a\r\nb\tc',
  'a\u2028b',
  '\ud800',
  '\uffff',
  '\u0085',
  'Zoë 🦄',
  '%3A%2F%40',
  'urn:cdx:x',
  'x'.repeat(1100),
  'https://example.com/a b',
  'https://example.com/%zz',
  'https://例え.jp/ü',
  'javascript:alert(1)',
  'http://127.0.0.1/x',
  'https://github.com/advisories/GHSA-xxxx',
  'CVE-2024-0001',
  'GHSA-2222-3333-4444',
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  'CVSS:3.1/AV:N/AC:L',
  'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
  'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
  'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:X',
  'AV:N/AC:L/Au:N/C:P/I:P/A:P',
  '(AV:N/AC:L/Au:N/C:P/I:P/A:P',
  'CVSS:3.1/AV:Q/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  'MODERATE',
  'critical',
  'Low',
  'CWE-79',
  'CWE-0',
  'CWE-99999999999',
  '2024-05-14T15:30:28Z',
  '2024-05-14T15:30:28.123456789+05:30',
  '2024-13-45T99:99:99Z',
  '0000-01-01T00:00:00Z',
  '1.0.0',
];

const text = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
);

/** A field: usually its shape, sometimes anything at all (a document that broke the schema). */
function field<T>(shaped: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.anything({ maxDepth: 2 })) });
}

const severity = fc.record({ type: fc.constantFrom('CVSS_V2', 'CVSS_V3', 'CVSS_V4', 'Ubuntu', 'CVSS_V5'), score: text });
const databaseSpecific = fc.record({ severity: field(text), cwe_ids: field(fc.array(field(text), { maxLength: 3 })) }, { requiredKeys: [] });

const advisory: fc.Arbitrary<OsvAdvisory> = fc
  .record(
    {
      id: text,
      modified: field(text),
      published: field(text),
      aliases: field(fc.array(text, { maxLength: 4 })),
      summary: field(text),
      details: field(text),
      severity: field(fc.array(severity, { maxLength: 3 })),
      affected: field(fc.array(fc.record({ package: fc.record({ ecosystem: text, name: text }), severity: field(fc.array(severity, { maxLength: 2 })), database_specific: field(databaseSpecific) }, { requiredKeys: [] }), { maxLength: 2 })),
      references: field(fc.array(fc.record({ type: text, url: field(text) }, { requiredKeys: [] }), { maxLength: 4 })),
      database_specific: field(databaseSpecific),
    },
    { requiredKeys: ['id'] },
  )
  // Typed as the store hands documents over; the renderers must not trust the types.
  .map((a) => a as unknown as OsvAdvisory);

const REFS = ['pypi:jinja2@2.10', 'pypi:urllib3@1.24.1', 'npm:left-pad@1.0.0', 'app', 'not-in-the-inventory'];

const match: fc.Arbitrary<VulnerabilityMatch> = fc.record({
  advisory,
  ecosystem: text,
  aliases: fc.array(text, { maxLength: 3 }),
  affects: fc.array(fc.record({ ref: fc.constantFrom(...REFS), version: text, fixedVersions: fc.array(text, { maxLength: 3 }) }), { minLength: 1, maxLength: 3 }),
});

const report: fc.Arbitrary<VulnerabilityReport> = fc.record({
  matches: fc.array(match, { minLength: 1, maxLength: 6 }),
  snapshots: fc.array(fc.record({ ecosystem: text, advisories: fc.nat(), modifiedMax: fc.option(text, { nil: null }), syncedAt: fc.option(text, { nil: null }) }), { maxLength: 3 }),
});

describe('any OSV content renders valid documents', () => {
  it(`${RUNS} seeded reports: CycloneDX and SPDX valid by the production validators and the official SPDX schema; text within its width`, () => {
    fc.assert(
      fc.property(report, (vulnerabilities) => {
        const input = renderInput(sampleInventory(), vulnerabilities);
        const cdx = new BoundedOutput();
        renderCycloneDx(input, cdx);
        expect(cycloneDxProblems(cdx.toString())).toEqual([]);
        const spdx = new BoundedOutput();
        renderSpdx(input, spdx);
        const document = JSON.parse(spdx.toString()) as unknown;
        expect(spdxProblems(document)).toEqual({ schema: [], content: [] });
        expect(officialSpdxSchema(document), JSON.stringify(officialSpdxSchema.errors)).toBe(true);
        const plain = new BoundedOutput();
        renderText(input, plain);
        // Columns as the layout counts them: graphemes.
        for (const line of plain.toString().split('\n')) expect([...graphemes.segment(line)].length).toBeLessThanOrEqual(120);
      }),
      { numRuns: RUNS, seed: 33_000, endOnFailure: true },
    );
  }, 120_000);

  it('and cdx-validate --strict accepts 12 of them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pkgscope-adv-props-'));
    try {
      const files: string[] = [];
      for (const [i, vulnerabilities] of fc.sample(report, { numRuns: 12, seed: 33_001 }).entries()) {
        const out = new BoundedOutput();
        renderCycloneDx(renderInput(sampleInventory(), vulnerabilities), out);
        const file = join(dir, `${i}.cdx.json`);
        await writeFile(file, out.toString());
        files.push(file);
      }
      const script = join(import.meta.dirname, '..', 'helpers', 'cdx-validate-many.ts');
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, ...files], { maxBuffer: 64 * 1024 * 1024 });
      const results = JSON.parse(stdout) as { file: string; schemaValid: boolean; deepValid: boolean; fails: boolean; said: string[] }[];
      expect(results).toHaveLength(12);
      expect(results.filter((r) => !r.schemaValid || !r.deepValid || r.fails)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
