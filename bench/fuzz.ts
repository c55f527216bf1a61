/**
 * `npm run fuzz`: a mutation campaign per lockfile format through the analysis thread pool, as
 * the service runs it (time budget, heap limit). Prints per format: inputs, documents, typed
 * failures, crashes (anything that is not a typed AnalysisError), over-budget inputs and peak
 * RSS of the process (threads included; run one format per process for a figure of its own).
 * Crashing and over-budget inputs are written under the output folder to replay.
 *
 * Then hostile list selectors (globs, matched on the API thread: each input's parse and match
 * over long paths is timed against the budget) and grep patterns (RE2, compiled and matched over
 * 200 KB on the grep thread pool as the service runs them): see bench/fuzz-inputs.ts. Then
 * robots.txt files, checked against robots-parser and timed when hostile: see bench/fuzz-robots.ts.
 *
 *   npm run fuzz -- [--runs 3000] [--seed 1] [--budget-ms 2000] [--heap-mb 512] [--format npm] [--kind lockfiles|selectors|patterns|robots] [--out /tmp/pkgscope-fuzz]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { AnalysisError, LimitExceededError, OUTPUT_FORMATS, type InputFile } from '../src/model/types.js';
import { createAnalysisPool } from '../src/threads/analysis-pool.js';
import { FORMATS, mutatedUpload, type FuzzFormat } from '../test/fuzz/mutations.js';
import { patternCampaign, selectorCampaign, type InputTally } from './fuzz-inputs.js';
import { robotsCampaign } from './fuzz-robots.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3000' },
    seed: { type: 'string', default: '1' },
    'budget-ms': { type: 'string', default: '2000' },
    'heap-mb': { type: 'string', default: '512' },
    format: { type: 'string', multiple: true },
    out: { type: 'string', default: '/tmp/pkgscope-fuzz' },
    threads: { type: 'string', default: '2' },
    kind: { type: 'string', multiple: true },
  },
});
const kinds = new Set(values.kind ?? ['lockfiles', 'selectors', 'patterns', 'robots']);

const runs = Number(values.runs);
const budgetMs = Number(values['budget-ms']);
const heapMb = Number(values['heap-mb']);
const threads = Number(values.threads);
const formats = (values.format ?? [...FORMATS]) as FuzzFormat[];

interface Tally {
  inputs: number;
  documents: number;
  typed: number;
  crashes: number;
  overTime: number;
  overHeap: number;
  peakRssMb: number;
  slowestMs: number;
}

async function campaign(format: FuzzFormat, seed: number): Promise<Tally> {
  const unexpected: Error[] = [];
  const pool = createAnalysisPool({ threads, maxQueue: 1_000, budgetMs, maxHeapMb: heapMb, onUnexpected: (e) => unexpected.push(e) });
  const tally: Tally = { inputs: 0, documents: 0, typed: 0, crashes: 0, overTime: 0, overHeap: 0, peakRssMb: 0, slowestMs: 0 };
  const sample = () => (tally.peakRssMb = Math.max(tally.peakRssMb, process.memoryUsage().rss / 2 ** 20));
  const sampler = setInterval(sample, 50);
  const out = join(values.out, format);
  mkdirSync(out, { recursive: true });
  const keep = (kind: string, index: number, files: readonly InputFile[], detail: string): void => {
    writeFileSync(join(out, `${kind}-${index}.json`), JSON.stringify({ detail, files }));
  };
  // One input at a time, each from its own derived seed: generating them all first would put
  // every input in memory at once and inflate the peak RSS this campaign reports.
  const arbitrary = fc.tuple(mutatedUpload(format), fc.constantFrom(...OUTPUT_FORMATS));
  const input = (index: number): [InputFile[], (typeof OUTPUT_FORMATS)[number]] | undefined => fc.sample(arbitrary, { numRuns: 1, seed: seed * 1_000_003 + index })[0];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < runs; index = next++) {
      const [files, output] = input(index) ?? [[], 'text'];
      const before = unexpected.length;
      const started = performance.now();
      try {
        await pool.analyze(files, output, {});
        tally.documents++;
      } catch (error) {
        if (error instanceof LimitExceededError && error.limit === 'ANALYSIS_TIME_LIMIT_MS') {
          tally.overTime++;
          if (tally.overTime <= 20) keep('over-budget', index, files, error.message);
        } else if (error instanceof LimitExceededError && error.limit === 'ANALYSIS_MAX_HEAP_MB') {
          tally.overHeap++;
          if (tally.overHeap <= 20) keep('over-heap', index, files, error.message);
        } else if (error instanceof AnalysisError && unexpected.length === before) {
          tally.typed++;
        } else {
          tally.crashes++;
          const cause = unexpected.at(-1) ?? error;
          keep('crash', index, files, cause instanceof Error ? (cause.stack ?? cause.message) : String(cause));
        }
      }
      tally.slowestMs = Math.max(tally.slowestMs, performance.now() - started);
      tally.inputs++;
    }
  };
  await Promise.all(Array.from({ length: threads }, worker));
  clearInterval(sampler);
  sample();
  await pool.close();
  return tally;
}

const rows: Record<string, Tally> = {};
for (const [i, format] of (kinds.has('lockfiles') ? formats : []).entries()) {
  const started = performance.now();
  rows[format] = await campaign(format, Number(values.seed) + i);
  console.log(`${format}: done in ${Math.round((performance.now() - started) / 1000)} s`);
}
if (Object.keys(rows).length > 0) console.table(
  Object.fromEntries(
    Object.entries(rows).map(([format, t]) => [
      format,
      { inputs: t.inputs, documents: t.documents, typed: t.typed, crashes: t.crashes, 'over time': t.overTime, 'over heap': t.overHeap, 'slowest ms': Math.round(t.slowestMs), 'peak RSS MB': Math.round(t.peakRssMb) },
    ]),
  ),
);
console.log(`budget ${budgetMs} ms, heap ${heapMb} MB, ${threads} threads; crashing and over-budget inputs under ${values.out}`);
const inputs: Record<string, InputTally> = {};
const options = { runs: Math.min(runs, 1000), seed: Number(values.seed), budgetMs, heapMb, threads, out: values.out };
if (kinds.has('selectors')) inputs['selectors'] = await selectorCampaign(options);
if (kinds.has('patterns')) inputs['grep patterns'] = await patternCampaign(options);
if (kinds.has('robots')) inputs['robots.txt'] = await robotsCampaign(options);
if (Object.keys(inputs).length > 0) console.table(inputs);
const failed = Object.values(rows).some((t) => t.crashes > 0) || Object.values(inputs).some((t) => t.crashes > 0);
process.exitCode = failed ? 1 : 0;
