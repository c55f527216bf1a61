import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGoMod } from '../../../../src/ecosystems/golang/parse-go-mod.js';
import { GO_FILE_LIMITS, GoFileError } from '../../../../src/ecosystems/golang/syntax.js';
import { buildGo, components, goFixture } from './helpers.js';

const GOOD_SUM = 'github.com/pkg/errors v0.9.1 h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=\n';

describe('files that cannot be read', () => {
  const cases: [string, string, string, number | undefined][] = [
    ['unterminated block', 'module a\n\nrequire (\n\tb.com/c v1.0.0\n', 'malformed', 3],
    ['block comment', 'module a\n/* no */\n', 'malformed', 2],
    ['version that is not semver', 'module a\nrequire b.com/c 1.0.0\n', 'malformed', 2],
    ['repeated module', 'module a\nmodule b\n', 'malformed', 2],
    ['no module directive', 'go 1.22\nrequire b.com/c v1.0.0\n', 'malformed', undefined],
    ['module replacement without a version', 'module a\nreplace b.com/c => d.com/e\n', 'malformed', 2],
    ['directory replacement with a version', 'module a\nreplace b.com/c => ./c v1.0.0\n', 'malformed', 2],
    ['unterminated string', 'module "a\n', 'malformed', 1],
    ['stray quote', "module 'a'\n", 'malformed', 1],
    ['control character', 'module a\u0001\n', 'malformed', 1],
    ['text after a closing paren', 'module a\nrequire (\n\tb.com/c v1.0.0\n) x\n', 'malformed', 4],
    ['retract without an interval', 'module a\nretract [v1.0.0 v1.1.0]\n', 'malformed', 2],
    ['a line longer than the bound', `module a\n// ${'x'.repeat(GO_FILE_LIMITS.lineLength)}\n`, 'limit_exceeded', 2],
  ];
  it.each(cases)('go.mod with %s is skipped with a problem naming the file and line', async (_name, content, reason, line) => {
    const result = await buildGo([
      { path: 'svc/go.mod', content },
      { path: 'go.mod', content: 'module ok\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.1\n' },
    ]);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ path: 'svc/go.mod', reason });
    expect(result.problems[0]?.line).toBe(line);
    expect(result.inventory.notices.some((n) => n.startsWith('svc/go.mod was skipped'))).toBe(true);
    // The other module is still analysed.
    expect(components(result).map((o) => o.name)).toEqual(['github.com/pkg/errors']);
  });

  it.each([
    ['two fields', 'github.com/pkg/errors v0.9.1\n', 1],
    ['a bad hash', `${GOOD_SUM}github.com/pkg/errors v0.9.1/go.mod sha256:abc\n`, 2],
    ['a bad version', 'github.com/pkg/errors master h1:abc=\n', 1],
  ])('go.sum with %s is a problem; go.mod still gives its build list', async (_name, content, line) => {
    const result = await buildGo([
      { path: 'go.mod', content: 'module ok\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.1\n' },
      { path: 'go.sum', content },
    ]);
    expect(result.problems).toEqual([expect.objectContaining({ path: 'go.sum', reason: 'malformed', line })]);
    expect(components(result)[0]?.facts['go_sum']).toBeUndefined();
    expect(components(result)).toHaveLength(1);
  });

  it('ignores directives of a later Go with a notice, and keeps the build list', async () => {
    const result = await buildGo([{ path: 'go.mod', content: 'module ok\n\ngo 1.30\n\nfrobnicate (\n\tx y\n)\n\nrequire github.com/pkg/errors v0.9.1\n' }]);
    expect(result.problems).toEqual([]);
    expect(components(result)).toHaveLength(1);
    expect(result.inventory.notices).toContain('go.mod: directives not understood and ignored: frobnicate');
  });

  it('reads quoted paths, raw strings, CRLF line ends and comments after block parens as the go command does', () => {
    const mod = parseGoMod('\uFEFFmodule `example.com/a`\r\n\r\nrequire ( // deps\r\n\t"example.com/b" v1.0.0 // indirect\r\n) // end\r\nrequire example.com/c v1.0.0 //indirect\r\n');
    expect(mod.module).toBe('example.com/a');
    expect(mod.requires.map((r) => [r.path, r.version, r.indirect])).toEqual([
      ['example.com/b', 'v1.0.0', true],
      ['example.com/c', 'v1.0.0', true],
    ]);
  });
});

/** Only GoFileError may leave the parsers; build() turns it into a problem and never throws. */
async function buildNeverThrows(files: { path: string; content: string }[]): Promise<void> {
  const result = await buildGo(files);
  for (const p of result.problems) {
    expect(['malformed', 'limit_exceeded']).toContain(p.reason);
    expect(typeof p.message).toBe('string');
  }
  expect(Array.isArray(result.inventory.occurrences)).toBe(true);
}

describe('hostile input (property tests, seeded)', () => {
  const module = goFixture('module');
  const workspace = goFixture('workspace');
  const goMod = module.find((f) => f.path === 'go.mod')?.content ?? '';
  const goSum = module.find((f) => f.path === 'go.sum')?.content ?? '';
  const goWork = workspace.find((f) => f.path === 'go.work')?.content ?? '';

  /** A real file cut, spliced and salted with the characters the grammar cares about. */
  const mutated = (text: string) =>
    fc
      .tuple(
        fc.nat({ max: text.length }),
        fc.nat({ max: text.length }),
        fc.array(fc.constantFrom('(', ')', '[', ']', ',', '"', '`', '//', '/*', '=>', '\n', '\r', ' ', '\t', '\\', 'v1.0.0', 'require', 'replace', '\u0000', '\u2028', '😀'), { maxLength: 12 }),
        fc.string({ maxLength: 40 }),
      )
      .map(([cut, at, salt, noise]) => {
        const base = text.slice(0, Math.max(cut, at));
        const pos = Math.min(cut, at);
        return base.slice(0, pos) + salt.join('') + noise + base.slice(pos);
      });

  it('go.mod: build() finishes and reports only typed problems', async () => {
    await fc.assert(
      fc.asyncProperty(mutated(goMod), async (content) => {
        await buildNeverThrows([{ path: 'go.mod', content }]);
      }),
      { seed: 18, numRuns: 300 },
    );
  });

  it('go.sum: build() finishes and reports only typed problems', async () => {
    await fc.assert(
      fc.asyncProperty(mutated(goSum), async (content) => {
        await buildNeverThrows([
          { path: 'go.mod', content: goMod },
          { path: 'go.sum', content },
        ]);
      }),
      { seed: 19, numRuns: 300 },
    );
  });

  it('go.work: build() finishes and reports only typed problems', async () => {
    await fc.assert(
      fc.asyncProperty(mutated(goWork), async (content) => {
        await buildNeverThrows([...workspace.filter((f) => f.path !== 'go.work'), { path: 'go.work', content }]);
      }),
      { seed: 20, numRuns: 300 },
    );
  });

  it('random text in every Go file name: build() finishes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 400, unit: 'binary' }), fc.constantFrom('go.mod', 'go.sum', 'go.work'), async (content, path) => {
        await buildNeverThrows([{ path, content }]);
      }),
      { seed: 21, numRuns: 300 },
    );
  });

  it('refuses a file past the size bound before reading it', () => {
    const huge = `module a\n${'require b.com/c v1.0.0\n'.repeat(GO_FILE_LIMITS.bytes / 22 + 1)}`;
    expect(() => parseGoMod(huge)).toThrow(GoFileError);
  });

  it('stays linear: a large but valid go.mod is read in one pass', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `\texample.com/m${i} v1.0.${i}`);
    const result = await buildGo([{ path: 'go.mod', content: `module a\n\ngo 1.22\n\nrequire (\n${lines.join('\n')}\n)\n` }]);
    expect(components(result)).toHaveLength(20_000);
  });
});
