/**
 * npm run accuracy — scores the analysis on the real-world sets of the shared corpus
 * (`../shared/corpus`, or CORPUS_DIR) with the corpus's own scorer (`score.py`, python3).
 * Each set is analysed offline (the lockfiles' records only, no registry), as CycloneDX, and the
 * document is scored against the set's independent truth. Prints one row per set and the totals;
 * `--verbose` also lists misses and extras. Not part of `npm test`: the corpus is not ours to ship.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyze } from '../src/sbom/analyze.js';
import { AnalysisError, type InputFile } from '../src/model/types.js';

const corpus = resolve(process.env['CORPUS_DIR'] ?? fileURLToPath(new URL('../../shared/corpus', import.meta.url)));
const verbose = process.argv.includes('--verbose');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));

if (!existsSync(join(corpus, 'score.py'))) {
  console.log(`accuracy: no corpus at ${corpus} (set CORPUS_DIR); nothing to score`);
  process.exit(0);
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

interface Score {
  readonly truth_entries: number;
  readonly components: number;
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
  readonly recall: number | null;
  readonly precision: number | null;
  readonly duplicate_components: number;
  readonly components_without_purl: number;
  readonly misses?: string[];
  readonly scope_confusion?: Record<string, number>;
  readonly extras?: string[];
}

const sets = readdirSync(corpus)
  .filter((name) => !name.startsWith('_') && statSync(join(corpus, name)).isDirectory())
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();
const scratch = mkdtempSync(join(tmpdir(), 'pkgscope-accuracy-'));
const fmt = (n: number | null): string => (n === null ? '  -  ' : n.toFixed(3));
let tp = 0;
let fp = 0;
let fn = 0;
console.log(`${'set'.padEnd(26)} ${'truth'.padStart(6)} ${'comps'.padStart(6)} recall  precis  dups  time`);
try {
  for (const set of sets) {
    const dir = join(corpus, set);
    const files: InputFile[] = walk(dir)
      .filter((p) => !['SOURCE.txt', 'truth.json'].includes(relative(dir, p)))
      .map((p) => ({ path: relative(dir, p), content: readFileSync(p, 'utf8') }));
    const start = performance.now();
    let document: string;
    try {
      document = (await analyze(files, 'cyclonedx')).document;
    } catch (error) {
      const why = error instanceof AnalysisError ? `${error.code}${error.problems.length > 0 ? ` (${error.problems.length} file problems)` : ''}` : String(error);
      const truth = (JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as { entries: unknown[] }).entries.length;
      fn += truth;
      console.log(`${set.padEnd(26)} ${String(truth).padStart(6)}      - failed: ${why}`);
      continue;
    }
    const elapsed = performance.now() - start;
    const bom = join(scratch, `${set}.json`);
    writeFileSync(bom, document);
    const args = [join(corpus, 'score.py'), bom, dir, '--json', ...(verbose ? ['--verbose'] : [])];
    const score = JSON.parse(execFileSync('python3', args, { encoding: 'utf8' })) as Score;
    tp += score.tp;
    fp += score.fp;
    fn += score.fn;
    console.log(
      `${set.padEnd(26)} ${String(score.truth_entries).padStart(6)} ${String(score.components).padStart(6)} ${fmt(score.recall)}   ${fmt(score.precision)}  ${String(score.duplicate_components).padStart(4)}  ${elapsed.toFixed(0)} ms`,
    );
    if (verbose) {
      console.log(`    scopes (truth->document): ${Object.entries(score.scope_confusion ?? {}).map(([k, n]) => `${k} ${n}`).join(', ')}`);
      for (const m of score.misses ?? []) console.log(`    miss  ${m}`);
      for (const e of score.extras ?? []) console.log(`    extra ${e}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`overall: recall ${fmt(tp + fn === 0 ? null : tp / (tp + fn))}, precision ${fmt(tp + fp === 0 ? null : tp / (tp + fp))} (${tp} hits, ${fp} extras, ${fn} misses)`);
