/**
 * robots.txt inputs for `npm run fuzz` (kind `robots`): random files of user-agent groups and
 * allow/disallow rules with `*`, `$`, escapes and non-ASCII, checked against robots-parser (the
 * reference the crawler's own matcher follows) on random paths; every tenth input is hostile
 * (megabytes of `*`, half a megabyte of rules, one endless line) and only timed: parsing it and
 * checking 200 URLs must stay within the budget, as the crawler does on its event loop.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import robotsModule from 'robots-parser';
import { parseRobots } from '../src/inventory/sources/site-robots.js';
import type { InputTally } from './fuzz-inputs.js';

// The package exports its function as module.exports while its types declare a default export.
const robotsParser = robotsModule as unknown as typeof robotsModule.default;

interface RobotsCampaignOptions {
  readonly runs: number;
  readonly seed: number;
  readonly budgetMs: number;
  readonly out: string;
}

const AGENT = 'pkgscope';
const ORIGIN = 'http://robots.test';
const MAX_BYTES = 512_000;

const pieceArb = fc.constantFrom('/', 'a', 'b', 'ab', '*', '**', '$', '%2f', '%2F', 'é', '?', '=', '-', '.html', ' ');
const patternArb = fc.array(pieceArb, { maxLength: 8 }).map((pieces) => pieces.join(''));
const lineArb = fc.oneof(
  fc.constantFrom('*', AGENT, `${AGENT}/2.0`, 'PkgScope', 'other-bot', '').map((agent) => `User-agent: ${agent}`),
  patternArb.map((p) => `Disallow: ${p}`),
  patternArb.map((p) => `Allow: ${p}`),
  patternArb.map((p) => `disallow:${p} # comment`),
  fc.integer({ min: 0, max: 20 }).map((n) => `Crawl-delay: ${n}`),
  fc.constantFrom('Sitemap: http://robots.test/sitemap.xml', '# only a comment', 'garbage line', ''),
);
const fileArb = fc.array(lineArb, { maxLength: 16 }).map((lines) => lines.join(fc.sample(fc.constantFrom('\n', '\r\n', '\r'), 1)[0] ?? '\n'));
const pathArb = fc.array(fc.constantFrom('/', 'a', 'b', 'ab', '%2f', 'é', '?x=1', '.html', '$', '*'), { minLength: 0, maxLength: 8 }).map((p) => `/${p.join('')}`);

/** Hostile files: only their time is checked (the reference matcher would take minutes). */
function hostile(i: number): string {
  switch (i % 4) {
    case 0:
      return `User-agent: *\nDisallow: /${'*'.repeat(4_500_000)}\n`;
    case 1:
      return `User-agent: *\n${Array.from({ length: 60_000 }, (_, n) => `Disallow: /a*${n}*b$`).join('\n')}\n`;
    case 2:
      return `User-agent: *\nDisallow: /${'a*'.repeat(2_000_000)}\n`;
    default:
      return `User-agent: *\nAllow: /${'ab'.repeat(3_000_000)}$\nDisallow: /\n`;
  }
}

export async function robotsCampaign(options: RobotsCampaignOptions): Promise<InputTally> {
  const t: InputTally = { inputs: 0, answered: 0, refused: 0, crashes: 0, 'over budget': 0, 'slowest ms': 0 };
  const out = join(options.out, 'robots');
  mkdirSync(out, { recursive: true });
  const keep = (kind: string, index: number, detail: unknown): void => writeFileSync(join(out, `${kind}-${index}.json`), JSON.stringify(detail));
  const hostilePaths = Array.from({ length: 200 }, (_, n) => new URL(`/docs/${'a'.repeat(n % 50)}/page-${n}.html?x=${n}`, ORIGIN));
  for (let i = 0; i < options.runs; i++) {
    const seed = options.seed * 1_000_003 + i;
    t.inputs++;
    if (i % 10 === 9) {
      const text = hostile(i / 10);
      const started = performance.now();
      const rules = await parseRobots(Buffer.from(text, 'utf8'), AGENT, MAX_BYTES);
      for (const url of hostilePaths) rules.isAllowed(url);
      const ms = performance.now() - started;
      t['slowest ms'] = Math.max(t['slowest ms'], Math.round(ms));
      if (ms > options.budgetMs) {
        t['over budget']++;
        keep('over-budget', i, { kind: i / 10, ms });
      } else t.answered++;
      continue;
    }
    const [text, paths] = fc.sample(fc.tuple(fileArb, fc.array(pathArb, { minLength: 1, maxLength: 8 })), { numRuns: 1, seed })[0] ?? ['', ['/']];
    try {
      const ours = await parseRobots(Buffer.from(text, 'utf8'), AGENT, MAX_BYTES);
      const reference = robotsParser(`${ORIGIN}/robots.txt`, text);
      const differ = paths.filter((path) => {
        const url = new URL(`${ORIGIN}${path}`);
        return ours.isAllowed(url) !== (reference.isAllowed(url.href, AGENT) ?? true);
      });
      if (differ.length > 0 || ours.crawlDelay !== reference.getCrawlDelay(AGENT)) {
        t.crashes++;
        keep('mismatch', i, { text, differ, crawlDelay: [ours.crawlDelay, reference.getCrawlDelay(AGENT)] });
      } else t.answered++;
    } catch (error) {
      t.crashes++;
      keep('crash', i, { text, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  }
  return t;
}
