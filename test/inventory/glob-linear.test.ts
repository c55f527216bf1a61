import fc from 'fast-check';
import picomatch from 'picomatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGlob, GLOB_LIMITS } from '../../src/inventory/query/glob.js';
import type { ListResponseType } from '../../src/routes/inventory/schemas.js';
import { InventoryIndex, MAX_GLOB_WORK, type StoredEntry } from '../../src/inventory/query/query.js';
import { parseSelection } from '../../src/inventory/query/selection.js';
import { parseTarget } from '../../src/inventory/targets.js';
import { inventoryClient } from '../helpers/inventory-client.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { baseline, postJson, probeBound, probeWhile } from '../helpers/probe.js';
import { packageTarball } from '../helpers/tarball.js';
import type { RunningWorkers } from '../../src/processes/workers.js';

/**
 * List globs match in time linear in the path (issue #29): they run as RE2 programs (re2js), with
 * picomatch's meaning (`dot: true`) kept, and paths over the cap are never matched by a glob.
 */

const pm = (glob: string, path: string): boolean => picomatch(glob, { dot: true })(path);

describe('glob semantics (picomatch with dot: true)', () => {
  it('agrees with picomatch on dotfiles, ** segments, braces, classes, extglobs and negation', () => {
    const cases: [string, string[]][] = [
      ['*', ['a', '.a', 'a/b', 'a.js']],
      ['*.js', ['a.js', '.js', 'x/a.js', '.eslintrc.js']],
      ['.*', ['.a', 'a', '.eslintrc.js']],
      ['**', ['a', 'a/b', '.a/.b', 'x/y/z.js']],
      ['a/**', ['a', 'a/b', 'a/b/c', 'ab', 'a/.b']],
      ['**/b', ['b', 'a/b', 'x/a/b', 'ab', '.a/b']],
      ['a/**/b', ['a/b', 'a/x/b', 'a/x/y/b', 'ab', 'a/xb']],
      ['a/**/**/b', ['a/b', 'a/x/b']],
      ['*/**', ['a', 'a/b', 'a/b/c']],
      ['lib/**/*.js', ['lib/a.js', 'lib/x/y/a.js', 'lib/.hidden/a.js', 'lib/a.ts', 'src/lib/a.js']],
      ['a**b', ['ab', 'axb', 'a/b']],
      ['**a', ['a', 'xa', 'x/a']],
      ['?', ['a', 'ab']],
      ['a?c', ['abc', 'a/c', 'a.c']],
      ['[abc]x', ['ax', 'dx', '[abc]x']],
      ['[^a]', ['a', 'b']],
      ['[a-c]x', ['bx', 'dx']],
      ['[[:digit:]]*', ['1a', 'a']],
      ['app/[slug]/page.tsx', ['app/[slug]/page.tsx', 'app/s/page.tsx', 'app/x/page.tsx']],
      ['*.{js,ts}', ['a.js', 'a.ts', 'a.css']],
      ['{a,b/c}', ['a', 'b/c', 'b']],
      ['{a,{b,c}}/d', ['a/d', 'c/d', 'x/d']],
      ['{a..c}', ['a', 'b', 'd']],
      ['{1..3}', ['1', '3', '4']],
      ['@(a|b)', ['a', 'b', 'ab']],
      ['+(a|b)c', ['ac', 'abac', 'c']],
      ['*(a)x', ['x', 'aax']],
      ['?(a)x', ['x', 'ax', 'aax']],
      ['(a|b)', ['a', 'b', '(a|b)']],
      ['!**/*.js', ['a.js', 'a.ts', 'x/y.js']],
      ['!!a', ['a', 'b']],
      ['a\\*b', ['a*b', 'axb']],
      ['a+b', ['a+b', 'aab']],
      ['a|b', ['a|b', 'a']],
    ];
    for (const [glob, paths] of cases) {
      const mine = compileGlob(glob).match;
      for (const path of paths) expect(mine(path), `${glob} against ${path}`).toBe(pm(glob, path));
    }
  });

  it('agrees with picomatch on generated globs and paths', () => {
    const token = fc.constantFrom('a', 'b', 'x', '-', '*', '?', '[ab]', '[^a]', '[a-c]', '[[:digit:]]', '{a,b}', '{x,a/b}', '{a..c}', '@(a|b)', '+(a)', '\\*');
    const segment = fc.oneof(
      { weight: 1, arbitrary: fc.constant('**') },
      { weight: 4, arbitrary: fc.array(token, { minLength: 1, maxLength: 3 }).map((t) => t.join('')) },
    );
    const glob = fc
      .tuple(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 4 }))
      .map(([negated, segments]) => `${negated ? '!' : ''}${segments.join('/')}`)
      // picomatch's own oddities, left out: `**` running into a brace or an extglob, and `)?` (a regex quantifier to it).
      .filter((g) => !/\*\*[{@+(]|\)\?/.test(g));
    const path = fc
      .array(fc.array(fc.constantFrom('a', 'b', 'x', '.', '-', '1', 'c', '*'), { minLength: 1, maxLength: 4 }).map((c) => c.join('')), { minLength: 1, maxLength: 5 })
      .map((s) => s.join('/'))
      .filter((p) => !/(^|\/)\.\.?(\/|$)/.test(p));
    fc.assert(
      fc.property(glob, path, (g, p) => compileGlob(g).match(p) === pm(g, p)),
      { numRuns: 1000, seed: 29 },
    );
  });
});

describe('glob bounds', () => {
  const entry = (path: string): StoredEntry => ({ path, kind: 'file', byteSize: 1, lineCount: 1, contentHash: null, language: null, fileType: null, intent: null, title: null });
  const target = parseTarget('npm:x@1.0.0');
  if (!target.ok) throw new Error('target');
  const select = (paths: string[]) => parseSelection({ paths, recursive: true, limit: 500 }, target.target);

  it('answers a hostile glob over a 60,000-character path (the path is over the cap: no glob matches it)', async () => {
    const long = `${'n'.repeat(60_000)}.txt`;
    const index = new InventoryIndex([entry(long), entry('src/nnx'), entry('src/index.js'), entry(`d/${'n'.repeat(GLOB_LIMITS.maxPathLength - 3)}x`)]);
    const selection = select(['**/*n*n*x', '**/*n*n*n*n*n*n*n*n*x']);
    if (!selection.ok) throw new Error(selection.detail);
    const paths = (await index.page(selection.selection, null)).entries.map((e) => e.path);
    // A path at the cap still matches; the 60,000-character one is listed by its folder, never by a glob.
    expect(paths).toEqual([`d/${'n'.repeat(GLOB_LIMITS.maxPathLength - 3)}x`, 'src/nnx']);
    const literal = select([]);
    if (!literal.ok) throw new Error(literal.detail);
    expect((await index.page(literal.selection, null)).entries.map((e) => e.path)).toContain(long);
  });

  it('refuses globs it cannot match in bounded work, naming the rule', () => {
    const negated = select(['src/!(a).js']);
    expect(negated).toMatchObject({ ok: false });
    expect(!negated.ok && negated.detail).toMatch(/!\(\.\.\.\) is not supported/);
    // Measured before anything is compiled: compiling costs time in proportion to the text.
    const many = select(Array.from({ length: 60 }, (_, i) => `src/${'*a'.repeat(10)}${i}`));
    expect(many).toMatchObject({ ok: false });
    expect(!many.ok && many.detail).toMatch(/characters together, more than 1024/);
    expect(select(Array.from({ length: 30 }, (_, i) => `src/${'*a'.repeat(10)}${i}`))).toMatchObject({ ok: true });
    expect(select(['lib/**/*.{js,ts}', '**/*n*n*x', 'app/[slug]'])).toMatchObject({ ok: true });
  });
});

describe('glob listing over HTTP', () => {
  // Within the tar reader's path bound, long enough that picomatch's backtracking never answered.
  const DEEP = `deep/${'n'.repeat(900)}x`;
  let h: JobsHarness;
  let token: string;
  let base: string;
  let workers: RunningWorkers;
  const { listOk } = inventoryClient(
    () => h.app,
    () => token,
  );

  beforeAll(async () => {
    const files = { 'package.json': '{"name":"globs","version":"1.0.0"}\n', [DEEP]: 'x\n', 'src/index.js': 'x\n', 'src/nnnx': 'x\n', 'src/nnx': 'x\n' };
    // 1,200 paths of 1,000 characters: each costs a glob of 260 instructions about 260,000 steps.
    const many = Object.fromEntries(Array.from({ length: 1_200 }, (_, i) => [`long/${String(i).padStart(4, '0')}${'e'.repeat(990)}`, 'x\n']));
    const packages = {
      globs: { versions: { '1.0.0': { _tarball: await packageTarball(files) } } },
      longpaths: { versions: { '1.0.0': { _tarball: await packageTarball({ 'package.json': '{"name":"longpaths","version":"1.0.0"}\n', ...many }) } } },
    };
    h = await startJobsHarness({}, { packages });
    token = await h.token('globs');
    workers = await h.startWorkers();
    await listOk({ target: 'npm:globs@1.0.0', wait_timeout_ms: 20_000 });
    await listOk({ target: 'npm:longpaths@1.0.0', wait_timeout_ms: 60_000 });
    base = await h.listen();
  });
  afterAll(async () => {
    await workers.close();
    await h.close();
  });

  it('lists with a hostile glob while probes answer', async () => {
    const quiet = await baseline(base, token);
    const hostile = postJson(base, '/v1/list', token, { target: 'npm:globs@1.0.0', paths: ['**/*n*n*n*x'], limit: 500 });
    const { result, worstMs } = await probeWhile(base, token, hostile);
    expect(result.status).toBe(200);
    expect((result.json as ListResponseType).entries.map((e) => e.path)).toEqual([DEEP, 'src/nnnx']);
    expect(worstMs).toBeLessThan(probeBound(quiet));
  });

  it('stops a glob whose work over the inventory passes MAX_GLOB_WORK with a 400, answering probes meanwhile', async () => {
    const glob = `**/${'*e'.repeat(85)}x`;
    const quiet = await baseline(base, token);
    const hostile = postJson(base, '/v1/list', token, { target: 'npm:longpaths@1.0.0', paths: [glob], limit: 500 });
    const { result, worstMs, probes } = await probeWhile(base, token, hostile);
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({ code: 'VALIDATION_ERROR', detail: expect.stringMatching(/more than 200000000 steps .* stopped after \d+ paths; select a directory/) as unknown });
    // The walk yields to the event loop: probes were answered while it ran, within the bound.
    expect(probes).toBeGreaterThan(0);
    expect(worstMs).toBeLessThan(probeBound(quiet));
    // The same inventory, the same paths under a cheap glob: within the work bound, listed.
    const cheap = await postJson(base, '/v1/list', token, { target: 'npm:longpaths@1.0.0', paths: ['long/*x'], limit: 500 });
    expect(cheap.status).toBe(200);
    expect(MAX_GLOB_WORK).toBe(200_000_000);
  });

  it('answers an unsupported glob with 400 VALIDATION_ERROR', async () => {
    const res = await postJson(base, '/v1/list', token, { target: 'npm:globs@1.0.0', paths: ['!(src)/**'] });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'VALIDATION_ERROR', detail: expect.stringMatching(/!\(\.\.\.\)/) as unknown });
  });
});
