// cdx-validate's own verdict (`--strict`) over many CycloneDX files in one process: the CLI takes
// one file a run and spends seconds loading. The functions are the ones bin/validate.js calls,
// with its options; they are not exported, so they are imported by path from the pinned package.
// Run as `node --import tsx cdx-validate-many.ts FILE…`; prints one JSON array of verdicts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Report {
  readonly schemaValid: boolean;
  readonly deepValid: boolean;
}
interface Validator {
  readonly validateBomAdvanced: (bom: unknown, options: Record<string, unknown>) => Report;
  readonly shouldFail: (report: Report, options: Record<string, unknown>) => { shouldFail: boolean; reason: string | null };
}

const root = dirname(createRequire(import.meta.url).resolve('@cyclonedx/cdxgen'));
const { validateBomAdvanced, shouldFail } = (await import(pathToFileURL(join(root, 'lib/validator/index.js')).href)) as Validator;

const results: unknown[] = [];
const said: string[] = [];
// The validators print their findings; they are kept with the file they are about.
console.log = (...args: unknown[]) => said.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
for (const file of process.argv.slice(2)) {
  said.length = 0;
  const report = validateBomAdvanced(JSON.parse(readFileSync(file, 'utf8')), { schema: true, deep: true, includeManual: false, includePass: false, minSeverity: 'info' });
  // Compliance packs judge content (signatures, license coverage), not validity: only a critical finding fails here.
  const verdict = shouldFail(report, { strict: true, failSeverity: 'critical' });
  results.push({ file, schemaValid: report.schemaValid, deepValid: report.deepValid, fails: verdict.shouldFail, reason: verdict.reason, said: [...said] });
}
process.stdout.write(JSON.stringify(results));
