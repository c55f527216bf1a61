import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { InputFile } from '../../src/model/types.js';

/**
 * Mutations of real-shaped lockfiles (test/fixtures/lockfiles), as fast-check arbitraries: the
 * property tests run a few hundred of them per format, `npm run fuzz` thousands.
 */

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'lockfiles');

export const FORMATS = ['npm', 'yarn-classic', 'yarn-berry', 'pnpm', 'bun'] as const;
export type FuzzFormat = (typeof FORMATS)[number];

/** Seed uploads per format: the lockfile with its package.json, from several fixture sets. */
const SEEDS: Readonly<Record<FuzzFormat, readonly [string, string][]>> = {
  npm: [
    ['small/npm1', 'package-lock.json'],
    ['small/npm2', 'package-lock.json'],
    ['small/npm3', 'package-lock.json'],
    ['workspaces/npm3', 'package-lock.json'],
    ['peers/npm3', 'package-lock.json'],
  ],
  'yarn-classic': [
    ['small/yarn1', 'yarn.lock'],
    ['workspaces/yarn1', 'yarn.lock'],
    ['peers/yarn1', 'yarn.lock'],
  ],
  'yarn-berry': [
    ['small/yarn4', 'yarn.lock'],
    ['workspaces/yarn4', 'yarn.lock'],
    ['peers/yarn4', 'yarn.lock'],
  ],
  pnpm: [
    ['small/pnpm7', 'pnpm-lock.yaml'],
    ['small/pnpm8', 'pnpm-lock.yaml'],
    ['small/pnpm9', 'pnpm-lock.yaml'],
    ['peers/pnpm9', 'pnpm-lock.yaml'],
    ['multidoc/pnpm12', 'pnpm-lock.yaml'],
  ],
  bun: [
    ['small/bun', 'bun.lock'],
    ['workspaces/bun', 'bun.lock'],
    ['peers/bun', 'bun.lock'],
  ],
};

export interface Seed {
  readonly lockfile: InputFile;
  readonly manifest: InputFile;
}

export function seeds(format: FuzzFormat): Seed[] {
  return SEEDS[format].map(([dir, name]) => ({
    lockfile: { path: name, content: readFileSync(join(FIXTURES, dir, name), 'utf8') },
    manifest: { path: 'package.json', content: readFileSync(join(FIXTURES, dir, 'package.json'), 'utf8') },
  }));
}

type Mutation = (text: string) => string;

const at = (position: number, text: string): number => Math.floor(position * text.length);

/** One mutation of the text, chosen and parameterised by fast-check. */
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }).map((p): Mutation => (t) => t.slice(0, at(p, t))),
  fc
    .tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 }))
    .map(([p, byte]): Mutation => (t) => `${t.slice(0, at(p, t))}${String.fromCharCode(byte)}${t.slice(at(p, t) + 1)}`),
  // Duplicated keys: a line repeated right after itself.
  fc.double({ min: 0, max: 1, noNaN: true }).map((p): Mutation => (t) => {
    const lines = t.split('\n');
    const i = Math.min(lines.length - 1, Math.floor(p * lines.length));
    lines.splice(i, 0, lines[i] ?? '');
    return lines.join('\n');
  }),
  // Prototype keys where names are expected.
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString').chain((key) =>
    fc.double({ min: 0, max: 1, noNaN: true }).map((p): Mutation => (t) => {
      // The next key after a random place, searched in a bounded window (an unbounded search
      // over a long mutated line would make generating inputs quadratic).
      const start = at(p, t);
      const hit = /"?([@\w./-]{1,200})"?\s*:/.exec(t.slice(start, start + 4_000));
      if (!hit?.[1]) return t;
      const index = start + hit.index;
      return `${t.slice(0, index)}${t.slice(index).replace(hit[1], key)}`;
    }),
  ),
  // Deep nesting: brackets, or indentation, opened at one place.
  fc
    .tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 50, max: 20_000 }), fc.constantFrom('[', '{"a":', '- ', 'a:\n'))
    .map(([p, depth, open]): Mutation => (t) => {
      const nest = open === 'a:\n' ? Array.from({ length: Math.min(depth, 500) }, (_, i) => `${' '.repeat(i)}a:\n`).join('') : open.repeat(depth);
      return `${t.slice(0, at(p, t))}${nest}${t.slice(at(p, t))}`;
    }),
  // An alias bomb appended (and referenced) in YAML-like text.
  fc.integer({ min: 2, max: 9 }).map((levels): Mutation => (t) => {
    const bomb = ['bomb:', '  l0: &l0 [x, x, x, x, x, x, x, x, x]'];
    for (let l = 1; l <= levels; l++) bomb.push(`  l${l}: &l${l} [${Array(9).fill(`*l${l - 1}`).join(', ')}]`);
    return `${t.replace(/(\n\s+os:)[^\n]*/, `$1 *l${levels}`)}\n${bomb.join('\n')}\n`;
  }),
  // Huge numbers in place of a version or count.
  fc
    .tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom('1e400', '-1e400', '9'.repeat(400), '0x7fffffffffffffff', 'NaN', '-0'))
    .map(([p, number]): Mutation => (t) => {
      const digits = [...t.matchAll(/\d+/g)];
      const hit = digits[Math.floor(p * digits.length)];
      if (hit?.index === undefined) return t;
      return `${t.slice(0, hit.index)}${number}${t.slice(hit.index + hit[0].length)}`;
    }),
  // A long line (or a long key) inserted.
  fc
    .tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1_000, max: 200_000 }), fc.constantFrom('a', '/', 'a/', '"', ' ', '@'))
    .map(([p, length, unit]): Mutation => (t) => `${t.slice(0, at(p, t))}${unit.repeat(length)}${t.slice(at(p, t))}`),
);

/** An upload made from a seed of the format with one to four mutations applied to its lockfile. */
export function mutatedUpload(format: FuzzFormat): fc.Arbitrary<InputFile[]> {
  const available = seeds(format);
  return fc.tuple(fc.constantFrom(...available), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.boolean()).map(([seed, mutations, withManifest]) => {
    const content = mutations.reduce((text, mutate) => mutate(text), seed.lockfile.content);
    const lockfile = { path: seed.lockfile.path, content };
    return withManifest ? [seed.manifest, lockfile] : [lockfile];
  });
}
