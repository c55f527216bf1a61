/**
 * `npm run fuzz` campaigns over what a request names rather than uploads: list selectors (globs)
 * and grep patterns (RE2). Each input runs as the service runs it; a crash is anything other than
 * a typed refusal or an answer, an over-budget input is one slower than the budget (selectors on
 * the API thread) or one the grep thread's backstop had to stop (patterns). Both are kept under
 * the output folder to replay.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { GREP_LIMITS, checkPattern, GrepPatternError } from '../src/inventory/query/grep.js';
import { InventoryIndex, type StoredEntry } from '../src/inventory/query/query.js';
import { parseSelection } from '../src/inventory/query/selection.js';
import { parseTarget } from '../src/inventory/targets.js';
import { createGrepPool, GrepTaskOverBudget } from '../src/threads/grep-pool.js';

export interface InputTally {
  inputs: number;
  answered: number;
  refused: number;
  crashes: number;
  'over budget': number;
  'slowest ms': number;
}

interface CampaignOptions {
  readonly runs: number;
  readonly seed: number;
  readonly budgetMs: number;
  readonly heapMb: number;
  readonly threads: number;
  readonly out: string;
}

const tally = (): InputTally => ({ inputs: 0, answered: 0, refused: 0, crashes: 0, 'over budget': 0, 'slowest ms': 0 });

function keeper(out: string, kind: string): (what: string, index: number, input: unknown, detail: string) => void {
  const folder = join(out, kind);
  mkdirSync(folder, { recursive: true });
  return (what, index, input, detail) => writeFileSync(join(folder, `${what}-${index}.json`), JSON.stringify({ detail, input }));
}

/** Glob pieces that backtracking engines choke on, with picomatch's whole syntax around them. */
const globToken = fc.oneof(
  fc.constantFrom('*', '**', '?', '/', '**/', '/**', 'n', 'x', '.', '\\', '[', ']', '{', '}', ',', '(', ')', '|', '!', '+', '@', '^', '-', ':'),
  fc.constantFrom('*n', '[[:alpha:]]', '{a,b}', '{1..9}', '@(a|b)', '+(n)', '*(n)', '?(x)', '!(x)', '[^/]', '{**/a,b}', '(a|aa)'),
  fc.nat({ max: 400 }).map((k) => '*n'.repeat(k)),
);
const selectorArb = fc.array(fc.array(globToken, { minLength: 1, maxLength: 40 }).map((t) => t.join('').slice(0, 2048)), { minLength: 1, maxLength: 8 });

/** Entries with paths a hostile glob is aimed at: long runs of one letter, deep folders, and the 60,000-character one. */
function hostileIndex(): InventoryIndex {
  const entry = (path: string): StoredEntry => ({ path, kind: 'file', byteSize: 1, lineCount: 1, contentHash: null, language: null, fileType: null, intent: null, title: null });
  const paths = [`${'n'.repeat(60_000)}x`, `d/${'n'.repeat(1000)}`, `${'a/'.repeat(300)}n.js`, 'src/index.js', 'lib/a.nnx', '.eslintrc.js'];
  for (let i = 0; i < 200; i++) paths.push(`pkg/${'n'.repeat(i * 5)}/${i}.txt`);
  return new InventoryIndex(paths.map(entry));
}

/** Selectors parsed and matched over hostile paths, timed on this thread (where the API runs them). */
export async function selectorCampaign(options: CampaignOptions): Promise<InputTally> {
  const t = tally();
  const keep = keeper(options.out, 'selectors');
  const index = hostileIndex();
  const parsed = parseTarget('npm:fuzz@1.0.0');
  if (!parsed.ok) throw new Error(parsed.detail);
  for (let i = 0; i < options.runs; i++) {
    const paths = fc.sample(selectorArb, { numRuns: 1, seed: options.seed * 1_000_003 + i })[0] ?? ['*'];
    const started = performance.now();
    try {
      const selection = parseSelection({ paths, recursive: true, limit: 500 }, parsed.target);
      if (selection.ok) {
        await index.page(selection.selection, null);
        t.answered++;
      } else t.refused++;
    } catch (error) {
      t.crashes++;
      keep('crash', i, paths, error instanceof Error ? (error.stack ?? error.message) : String(error));
    }
    const ms = performance.now() - started;
    if (ms > options.budgetMs) {
      t['over budget']++;
      keep('over-budget', i, paths, `${Math.round(ms)} ms`);
    }
    t['slowest ms'] = Math.max(t['slowest ms'], Math.round(ms));
    t.inputs++;
  }
  return t;
}

/** RE2 pieces with large programs or many live states, and what PostgreSQL or RE2 refuse. */
const patternToken = fc.oneof(
  fc.constantFrom('[\\s\\S]{1000}', '.{1000}', '(a+)+', '(x+x+)+y', '(.*a){12}', '(\\w|\\d)*', 'a{256}', '\\x00', '\u0000', '(?i)', '(?=a)', '\\1', '\\b', '[[:alpha:]]', '\\pL'),
  fc.constantFrom('a', 'b', '.', '*', '+', '?', '|', '(', ')', '[', ']', '{', '}', '^', '$', '\\', '-', ','),
  fc.nat({ max: 80 }).map((k) => '[\\s\\S]{1000}'.repeat(k)),
);
const patternArb = fc.record({
  pattern: fc.array(patternToken, { minLength: 1, maxLength: 30 }).map((t) => t.join('').slice(0, GREP_LIMITS.maxPatternLength)),
  regex: fc.boolean(),
  caseSensitive: fc.boolean(),
});

/** Patterns checked, compiled and matched over 200 KB on the grep pool, with a whole request's bounds. */
export async function patternCampaign(options: CampaignOptions): Promise<InputTally> {
  const t = tally();
  const keep = keeper(options.out, 'patterns');
  const pool = createGrepPool({ threads: options.threads, maxQueue: 1_000, budgetMs: Math.max(options.budgetMs, GREP_LIMITS.maxScanMs * 2), maxHeapMb: options.heapMb });
  const text = Array.from({ length: 2000 }, (_, i) => `line ${i} aaaa bbbb ${'lorem ipsum '.repeat(7)}`).join('\n');
  const budget = { timeMs: GREP_LIMITS.maxScanMs, bytes: GREP_LIMITS.maxBytesScanned, work: GREP_LIMITS.maxScanWork, started: false };
  try {
    for (let i = 0; i < options.runs; i++) {
      const pattern = fc.sample(patternArb, { numRuns: 1, seed: options.seed * 1_000_003 + i })[0] ?? { pattern: 'a', regex: false, caseSensitive: true };
      const started = performance.now();
      try {
        checkPattern(pattern);
        const compiled = await pool.compile(pattern);
        if (!compiled.ok) t.refused++;
        else {
          await pool.scan(pattern, { files: [{ path: 'big.txt', text, from: null }], contextLines: 2, room: 1000, budget });
          t.answered++;
        }
      } catch (error) {
        if (error instanceof GrepPatternError) t.refused++;
        else if (error instanceof GrepTaskOverBudget) {
          t['over budget']++;
          keep('over-budget', i, pattern, error.message);
        } else {
          t.crashes++;
          keep('crash', i, pattern, error instanceof Error ? (error.stack ?? error.message) : String(error));
        }
      }
      t['slowest ms'] = Math.max(t['slowest ms'], Math.round(performance.now() - started));
      t.inputs++;
    }
  } finally {
    await pool.close();
  }
  return t;
}
