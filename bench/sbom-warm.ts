/** Child of bench/sbom.ts: warm-cache analyses in a fresh process, so peak RSS is the analysis's own. */
import { readFileSync } from 'node:fs';
import { connectDatabase } from '../src/db/client.js';
import { PgMetadataCache } from '../src/db/metadata-cache.js';
import { analyze } from '../src/sbom/analyze.js';
import { RegistryEnricher } from '../src/sbom/enrich.js';
import type { AnalysisPhase, InputFile, OutputFormat } from '../src/model/types.js';
import { ms } from './helpers.js';

const databaseUrl = process.argv[2] ?? '';
const database = connectDatabase(databaseUrl, { max: 2 });
const cache = new PgMetadataCache(database.db);
// A client that must not be reached: every coordinate is in the cache.
const enricher = new RegistryEnricher(new Map([['npm', { fetch: () => Promise.reject(new Error('cache miss')) }]]), cache);
const files: InputFile[] = ['package.json', 'package-lock.json'].map((name) => ({
  path: name,
  content: readFileSync(new URL(`fixtures/large/${name}`, import.meta.url), 'utf8'),
}));

const gc = (globalThis as { gc?: () => void }).gc;

async function timed(format: OutputFormat) {
  // Collect between runs (the parent passes --expose-gc): the peak is one analysis's, not the
  // garbage of several waiting for a collection the heap did not need yet.
  gc?.();
  const marks: Partial<Record<AnalysisPhase, number>> = {};
  const start = performance.now();
  const result = await analyze(files, format, { registry: enricher, onProgress: (p) => void (marks[p.phase] ??= performance.now()) });
  const end = performance.now();
  return {
    resolving: (marks.enriching ?? 0) - (marks.resolving ?? 0),
    enriching: (marks.rendering ?? 0) - (marks.enriching ?? 0),
    rendering: end - (marks.rendering ?? 0),
    total: end - start,
    result,
  };
}

const first = await timed('cyclonedx');
console.log(`first warm run in a fresh process (schema compiled on first use): ${ms(first.total)}`);
for (const format of ['cyclonedx', 'spdx', 'text'] as const) {
  const runs = [];
  for (let i = 0; i < 7; i++) runs.push(await timed(format));
  runs.sort((a, b) => a.total - b.total);
  const m = runs[3]!;
  console.log(
    `${format.padEnd(9)} warm, median of 7: resolving ${ms(m.resolving)} | enriching ${ms(m.enriching)} | ` +
      `rendering+validation ${ms(m.rendering)} | total ${ms(m.total)} | ${m.result.byteSize} bytes | cached ${m.result.counts.cached} fetch_failed ${m.result.counts.fetch_failed}`,
  );
}
console.log(`peak RSS of the analysis process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
await database.close();
