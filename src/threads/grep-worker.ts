import type { MessagePort } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { compileMatcher, GrepPatternError, type GrepPattern, type Matcher } from '../inventory/query/grep.js';
import { scanBatch, type BatchInput, type BatchScan } from '../inventory/query/grep-scan.js';
import { clock } from './budget-pool.js';

/** A grep thread's task: check a pattern (compile it), or match a batch of files. */
export type GrepTask = { readonly kind: 'compile'; readonly pattern: GrepPattern } | ({ readonly kind: 'scan'; readonly pattern: GrepPattern } & BatchInput);

export type GrepOutcome =
  | { readonly kind: 'compiled'; readonly programSize: number }
  | { readonly kind: 'invalid'; readonly message: string }
  | ({ readonly kind: 'scanned' } & BatchScan);

/** Patterns this thread compiled (a page's batches, and the next pages, use the same one). */
const matchers = new LRUCache<string, Matcher>({ max: 32 });

function matcherFor(pattern: GrepPattern): Matcher {
  const key = JSON.stringify([pattern.pattern, pattern.regex, pattern.caseSensitive]);
  let matcher = matchers.get(key);
  if (matcher === undefined) {
    matcher = compileMatcher(pattern);
    matchers.set(key, matcher);
  }
  return matcher;
}

/** Runs one grep task within the run's budget (src/inventory/query/grep-scan.ts bounds it itself first). */
export default function grepTask(task: GrepTask & { port: MessagePort }): GrepOutcome {
  clock(task.port, true);
  try {
    let matcher: Matcher;
    try {
      matcher = matcherFor(task.pattern);
    } catch (error) {
      if (error instanceof GrepPatternError) return { kind: 'invalid', message: error.message };
      throw error;
    }
    if (task.kind === 'compile') return { kind: 'compiled', programSize: matcher.programSize };
    return { kind: 'scanned', ...scanBatch(matcher, matcher.programSize, task, () => performance.now()) };
  } finally {
    task.port.close();
  }
}
