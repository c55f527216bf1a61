import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INPUT_LIMITS, parseJson, parseJsonc, parseToml, parseXml, parseYaml, parseYamlDocuments, StructureBounds } from '../../src/model/safe-parse.js';
import { AnalysisError, LimitExceededError } from '../../src/model/types.js';

function failure(parse: () => unknown): AnalysisError {
  try {
    parse();
  } catch (error) {
    if (error instanceof AnalysisError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('safe parsers', () => {
  it('reads each format as plain data', () => {
    expect(parseJson('a.json', '\uFEFF{"a":[1]}')).toEqual({ a: [1] });
    expect(parseJsonc('b.lock', '{ // note\n "a": [1,], }')).toEqual({ a: [1] });
    expect(parseYamlDocuments('c.yaml', 'a: 1\n---\nb: 2\n')).toEqual([{ a: 1 }, { b: 2 }]);
    expect(parseToml('Cargo.lock', '[[package]]\nname = "a"\nversion = "1.0.0"\n')).toEqual({ package: [{ name: 'a', version: '1.0.0' }] });
    expect(parseXml('pom.xml', '<project><version>1.0</version></project>')).toEqual({ project: { version: 1 } });
  });

  it('refuses nesting past maxDepth in every format, naming the file and the limit', () => {
    const deep = INPUT_LIMITS.maxDepth + 1;
    const cases: [string, () => unknown][] = [
      ['x.json', () => parseJson('x.json', `${'['.repeat(deep)}${']'.repeat(deep)}`)],
      ['x.jsonc', () => parseJsonc('x.jsonc', `/* [[[ */${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}`)],
      ['x.yaml', () => parseYaml('x.yaml', Array.from({ length: deep + 1 }, (_, i) => `${' '.repeat(i)}a:`).join('\n'))],
      ['x.toml', () => parseToml('x.toml', `a = ${'['.repeat(deep)}${']'.repeat(deep)}`)],
      ['x.xml', () => parseXml('x.xml', `${'<a>'.repeat(deep + 1)}${'</a>'.repeat(deep + 1)}`)],
    ];
    for (const [path, parse] of cases) {
      const error = failure(parse);
      expect(error, path).toBeInstanceOf(LimitExceededError);
      expect(error).toMatchObject({ code: 'execution_failed', limit: 'maxDepth', problems: [{ path, reason: 'too_deep', limit: INPUT_LIMITS.maxDepth }] });
    }
  });

  it('does not count brackets inside strings or comments', () => {
    const brackets = '['.repeat(INPUT_LIMITS.maxDepth * 2);
    expect(parseJson('a.json', JSON.stringify({ a: brackets }))).toEqual({ a: brackets });
    expect(parseJsonc('a.jsonc', `// ${brackets}\n{}`)).toEqual({});
  });

  it('counts the nesting of any JSON value exactly, whatever its strings hold (quotes, backslashes, brackets)', () => {
    const depthOf = (value: unknown): number =>
      typeof value !== 'object' || value === null ? 0 : 1 + Math.max(0, ...Object.values(value).map(depthOf));
    const strings = fc.string({ unit: fc.constantFrom('"', '\\', '[', ']', '{', '}', '/', '*', 'a', '\n') });
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, strings, fc.integer(), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(strings, tie('node'), { maxKeys: 3 })),
    })).node;
    fc.assert(
      fc.property(value, fc.boolean(), (v, comment) => {
        const wrappers = INPUT_LIMITS.maxDepth - depthOf(v);
        const wrapped = (n: number): string => `${comment ? '/* "[{ */ ' : ''}${'['.repeat(n)}${JSON.stringify(v)}${']'.repeat(n)}`;
        const parse = comment ? (text: string) => parseJsonc('v.jsonc', text) : (text: string) => parseJson('v.json', text);
        let expected: unknown = v;
        for (let i = 0; i < wrappers; i++) expected = [expected];
        expect(parse(wrapped(wrappers))).toEqual(expected);
        expect(failure(() => parse(wrapped(wrappers + 1)))).toBeInstanceOf(LimitExceededError);
      }),
      { numRuns: 300 },
    );
  });

  it('caps YAML aliases and leaves merge keys unexpanded', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 6; i++) bomb.push(`${'b'.repeat(i)}: &${'b'.repeat(i)} [${Array(9).fill(i === 1 ? '*a' : `*${'b'.repeat(i - 1)}`).join(', ')}]`);
    expect(failure(() => parseYaml('p.yaml', bomb.join('\n')))).toMatchObject({ limit: 'maxYamlAliases', problems: [{ reason: 'too_many_aliases' }] });
    expect(parseYaml('m.yaml', 'base: &b {x: 1}\nchild:\n  <<: *b\n')).toEqual({ base: { x: 1 }, child: { '<<': { x: 1 } } });
  });

  it('reports syntax errors with their line, as a typed failure that is not a limit', () => {
    const yaml = failure(() => parseYaml('p.yaml', 'a: 1\nb: [\n'));
    expect(yaml).not.toBeInstanceOf(LimitExceededError);
    expect(yaml.problems[0]).toMatchObject({ path: 'p.yaml', reason: 'syntax' });
    expect(yaml.problems[0]?.line).toBeGreaterThan(0);
    expect(failure(() => parseToml('c.toml', 'a = 1\nb = = 2\n')).problems[0]).toMatchObject({ path: 'c.toml', reason: 'syntax', line: 2 });
    expect(failure(() => parseJson('j.json', '{\n"a": }')).problems[0]).toMatchObject({ path: 'j.json', reason: 'syntax', line: 2 });
  });

  it('refuses long lines in line-oriented text, not in JSON', () => {
    const long = 'x'.repeat(INPUT_LIMITS.maxLineLength + 1);
    expect(failure(() => parseYaml('p.yaml', `a: ${long}\n`))).toMatchObject({ limit: 'maxLineLength', problems: [{ line: 1 }] });
    expect(parseJson('a.json', JSON.stringify({ a: long }))).toEqual({ a: long });
  });

  it('does not expand XML entities', () => {
    const xml = '<!DOCTYPE a [<!ENTITY e "boom">]><a>&e;</a>';
    expect(parseXml('a.xml', xml)).toMatchObject({ a: '&e;' });
  });

  it('bounds entries, edges, key length and path segments', () => {
    const bounds = new StructureBounds('lock');
    expect(() => bounds.entries(INPUT_LIMITS.maxEntries)).not.toThrow();
    expect(failure(() => bounds.entries(INPUT_LIMITS.maxEntries + 1))).toMatchObject({ limit: 'maxEntries' });
    expect(failure(() => bounds.edges('a', INPUT_LIMITS.maxEdgesPerEntry + 1))).toMatchObject({ limit: 'maxEdgesPerEntry', problems: [{ package: 'a' }] });
    expect(failure(() => bounds.key('k'.repeat(INPUT_LIMITS.maxKeyLength + 1)))).toMatchObject({ limit: 'maxKeyLength' });
    expect(failure(() => bounds.key(Array(INPUT_LIMITS.maxPathSegments + 1).fill('a').join('/')))).toMatchObject({ limit: 'maxPathSegments' });
    expect(() => bounds.key(Array(INPUT_LIMITS.maxPathSegments).fill('a').join('/'))).not.toThrow();
  });
});
