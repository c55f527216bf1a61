import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../../src/inventory/query/cursor.js';
import { exactSelector, InventoryIndex, type IndexEntry, type StoredEntry } from '../../src/inventory/query/query.js';
import { parseSelection, selectionKey, type Selection } from '../../src/inventory/query/selection.js';
import { parseTarget, type ListTarget } from '../../src/inventory/targets.js';

const file = (path: string, extra: Partial<StoredEntry> = {}): StoredEntry => ({
  path,
  kind: 'file',
  byteSize: 1,
  lineCount: 1,
  contentHash: `sha256:${path}`,
  language: path.endsWith('.ts') ? 'typescript' : path.endsWith('.js') ? 'javascript' : path.endsWith('.md') ? 'markdown' : null,
  fileType: path.includes('.') ? (path.split('.').pop() ?? null) : null,
  intent: path.startsWith('test/') ? 'test' : 'production',
  title: null,
  ...extra,
});

const FILES = [
  'README.md',
  'package.json',
  '.eslintrc.js',
  'src/index.ts',
  'src/util/strings.ts',
  'src/util/a b+c#d%e.ts',
  'src/ünïcode.ts',
  'src/Zebra.ts',
  'lib/index.js',
  'lib/index.d.ts',
  'test/index.test.ts',
  'test/fixtures/data.json',
  'docs/.hidden/note.md',
].map((p) => file(p));

const index = new InventoryIndex(FILES);
const target = (parseTarget('npm:demo@1.0.0') as { ok: true; target: ListTarget }).target;

function select(input: Parameters<typeof parseSelection>[0]): Selection {
  const parsed = parseSelection(input, target);
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.selection;
}

const paths = (entries: IndexEntry[]) => entries.map((e) => `${e.kind === 'directory' ? 'dir:' : ''}${e.path}`);
const all = async (selection: Selection): Promise<IndexEntry[]> => (await index.page({ ...selection, limit: 10_000 }, null)).entries;

describe('selection', () => {
  it('lists the root’s immediate children, directories first-class, in byte order of path', async () => {
    expect(paths(await all(select({})))).toEqual(['.eslintrc.js', 'README.md', 'dir:docs', 'dir:lib', 'package.json', 'dir:src', 'dir:test']);
  });

  it('lists a literal directory’s children, or its leaves when recursive', async () => {
    expect(paths(await all(select({ paths: ['src'] })))).toEqual(['src/Zebra.ts', 'src/index.ts', 'dir:src/util', 'src/ünïcode.ts']);
    expect(paths(await all(select({ paths: ['./src/'], recursive: true })))).toEqual([
      'src/Zebra.ts',
      'src/index.ts',
      'src/util/a b+c#d%e.ts',
      'src/util/strings.ts',
      'src/ünïcode.ts',
    ]);
  });

  it('lists a literal file as itself and ignores paths that do not exist', async () => {
    expect(paths(await all(select({ paths: ['src/util/strings.ts', 'nope.txt'] })))).toEqual(['src/util/strings.ts']);
  });

  it('matches globs against files at any depth, dotfiles included, independent of recursion', async () => {
    expect(paths(await all(select({ paths: ['**/*.md'] })))).toEqual(['README.md', 'docs/.hidden/note.md']);
    expect(paths(await all(select({ paths: ['*.js'] })))).toEqual(['.eslintrc.js']);
    expect(paths(await all(select({ paths: ['lib/*.ts'], recursive: true })))).toEqual(['lib/index.d.ts']);
  });

  it('takes the union of selectors without duplicates', async () => {
    expect(paths(await all(select({ paths: ['lib', 'lib/index.js', '**/index.*'] })))).toEqual([
      'lib/index.d.ts',
      'lib/index.js',
      'src/index.ts',
      'test/index.test.ts',
    ]);
  });

  it('filters files by union within a filter and intersection across filters, keeping directories', async () => {
    expect(paths(await all(select({ paths: ['src'], languages: [' TypeScript '] })))).toEqual([
      'src/Zebra.ts',
      'src/index.ts',
      'dir:src/util',
      'src/ünïcode.ts',
    ]);
    expect(paths(await all(select({ recursive: true, file_types: ['ts', 'json'], intents: ['test'] })))).toEqual([
      'test/fixtures/data.json',
      'test/index.test.ts',
    ]);
    expect(paths(await all(select({ recursive: true, file_types: ['ts'], intents: ['test'] })))).toEqual(['test/index.test.ts']);
    expect(paths(await all(select({ recursive: true, languages: ['javascript', 'markdown'] })))).toEqual([
      '.eslintrc.js',
      'README.md',
      'docs/.hidden/note.md',
      'lib/index.js',
    ]);
  });
});

describe('pagination', () => {
  it.each([1, 2, 3, 4, 5, 6, 7])('concatenates pages of limit %i into the unpaged listing', async (limit) => {
    for (const input of [{ recursive: true }, {}, { paths: ['src', '**/*.md'] }, { paths: ['src'], recursive: true }]) {
      const selection = { ...select(input), limit };
      const expected = paths(await all(selection));
      const collected: string[] = [];
      let after: string | null = null;
      for (let guard = 0; guard < 100; guard++) {
        const page = await index.page(selection, after);
        expect(page.entries.length).toBeLessThanOrEqual(limit);
        collected.push(...paths(page.entries));
        if (!page.hasMore) break;
        after = page.last;
      }
      expect(collected).toEqual(expected);
    }
  });

  it.each([1, 2, 3])('never skips a directory that is also a page (limit %i)', async (limit) => {
    const site = new InventoryIndex(['guide', 'guide/intro', 'guide-b', 'z'].map((p) => file(p, { kind: 'page' })));
    const selection = { ...select({}), limit };
    const collected: string[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 20; guard++) {
      const page = await site.page(selection, after);
      collected.push(...paths(page.entries));
      if (!page.hasMore) break;
      after = page.last;
    }
    expect(collected).toEqual(['guide', 'dir:guide', 'guide-b', 'z']);
  });
});

describe('directory names that read as globs (Next.js routes and friends)', () => {
  const NAMES = ['app/[slug]', 'app/(group)', 'app/[...all]', 'a{b,c}', 'star*', 'q?x', '+(p)'];
  const tree = new InventoryIndex(
    [...NAMES.flatMap((dir) => [`${dir}/page.tsx`, `${dir}/nested/deep.ts`]), 'app/s', 'app/l', 'ab', 'ac', 'starry', 'qax', 'p'].map((p) => file(p)),
  );
  const listed = async (selection: Selection): Promise<string[]> => paths((await tree.page({ ...selection, limit: 10_000 }, null)).entries);

  it.each(NAMES)('a browse selector for %s lists exactly that directory’s children', async (dir) => {
    const children = [`dir:${dir}/nested`, `${dir}/page.tsx`].sort((a, b) => Buffer.compare(Buffer.from(a.replace('dir:', '')), Buffer.from(b.replace('dir:', ''))));
    expect(await listed(select({ paths: [exactSelector(dir)] }))).toEqual(children);
    expect(await listed(select({ paths: [exactSelector(dir)], recursive: true }))).toEqual([`${dir}/nested/deep.ts`, `${dir}/page.tsx`]);
  });

  it('reads a selector naming an existing path as that path and as a glob', async () => {
    expect(await listed(select({ paths: ['app/[slug]'] }))).toEqual(['app/[slug]/nested', 'app/[slug]/page.tsx', 'app/l', 'app/s'].map((p) => (p.endsWith('nested') ? `dir:${p}` : p)));
    expect(await listed(select({ paths: ['a{b,c}'] }))).toEqual(['ab', 'ac', 'dir:a{b,c}/nested', 'a{b,c}/page.tsx']);
    // A glob that names no path stays a glob only.
    expect(await listed(select({ paths: ['app/[sl]'] }))).toEqual(['app/l', 'app/s']);
  });

  it('keeps plain paths as their own selectors', () => {
    expect(exactSelector('src/util')).toBe('src/util');
    expect(exactSelector('a\\b')).toBe('a\\b');
  });
});

describe('cursors', () => {
  const codec = new CursorCodec(Buffer.from('a-secret-of-at-least-thirty-two-bytes!'));
  const state = { selection: 'sel', inventory: 'inv', after: 'src/ünïcode.ts', pin: null };

  it('round-trips and refuses any altered byte or a foreign key', () => {
    const cursor = codec.encode(state);
    expect(codec.decode(cursor)).toEqual(state);
    for (let i = 0; i < cursor.length; i++) {
      const altered = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
      expect(codec.decode(altered), `byte ${i}`).toBeNull();
    }
    expect(new CursorCodec(Buffer.from('another-secret-of-thirty-two-bytes!!')).decode(cursor)).toBeNull();
    expect(codec.decode('garbage')).toBeNull();
  });

  it('binds to the selection: target, paths, filters, recursion and limit', () => {
    const base = selectionKey(target, select({ paths: ['src'] }));
    expect(selectionKey(target, select({ paths: ['./src/'] }))).toBe(base);
    const variants: Parameters<typeof parseSelection>[0][] = [
      { paths: ['lib'] },
      { paths: ['src'], recursive: true },
      { paths: ['src'], limit: 5 },
      { paths: ['src'], languages: ['typescript'] },
      { paths: ['src'], intents: ['test'] },
      { paths: ['src'], file_types: ['ts'] },
    ];
    for (const v of variants) expect(selectionKey(target, select(v))).not.toBe(base);
    const other = (parseTarget('npm:demo@1.0.1') as { ok: true; target: ListTarget }).target;
    expect(selectionKey(other, select({ paths: ['src'] }))).not.toBe(base);
  });
});

describe('targets and selection rules', () => {
  it('parses package, repository and site targets', () => {
    expect(parseTarget(' npm:@scope/pkg@^1.2 ')).toEqual({
      ok: true,
      target: { kind: 'package', registry: 'npm', name: '@scope/pkg', spec: '^1.2', text: 'npm:@scope/pkg@^1.2' },
    });
    expect(parseTarget('npm:react')).toMatchObject({ ok: true, target: { name: 'react', spec: null } });
    expect(parseTarget('github:owner/repo@v1.0.0')).toMatchObject({ ok: true, target: { kind: 'repository', owner: 'owner', repo: 'repo', ref: 'v1.0.0' } });
    expect(parseTarget('site:127.0.0.1:8081/docs/')).toMatchObject({ ok: true, target: { kind: 'site', host: '127.0.0.1:8081', scope: 'docs' } });
    for (const bad of ['react', 'cpan:Moose', 'npm:', 'npm:Bad Name', 'npm:x@', 'github:owner', 'site:', 'site:bad host']) {
      expect(parseTarget(bad).ok, bad).toBe(false);
    }
  });

  it('rejects blank or oversized paths, blank filters, unknown intents, filters on sites', () => {
    const site = (parseTarget('site:docs.example.test/guide') as { ok: true; target: ListTarget }).target;
    expect(parseSelection({ paths: ['  '] }, target)).toEqual({ ok: false, detail: 'paths[0] must not be blank' });
    expect(parseSelection({ paths: ['a', 'é'.repeat(1025)] }, target)).toEqual({ ok: false, detail: 'paths[1] is longer than 2048 UTF-8 bytes' });
    expect(parseSelection({ paths: ['x'.repeat(2048)] }, target).ok).toBe(true);
    expect(parseSelection({ languages: ['ts', ' '] }, target)).toEqual({ ok: false, detail: 'languages[1] must not be blank' });
    const unknownIntent = parseSelection({ intents: ['test', 'docs'] }, target);
    expect(unknownIntent.ok).toBe(false);
    expect(unknownIntent.ok ? '' : unknownIntent.detail).toMatch(/^intents\[1\] must be one of/);
    // Intents are ListIntent values: not trimmed or lowercased like file types and languages.
    for (const bad of ['TEST', ' test', 'Test ']) {
      const parsed = parseSelection({ intents: [bad] }, target);
      expect(parsed.ok ? '' : parsed.detail, bad).toMatch(/^intents\[0\] must be one of/);
    }
    expect(parseSelection({ file_types: ['md'] }, site)).toEqual({ ok: false, detail: 'file_types cannot be used with a site: target' });
    expect(parseSelection({ paths: ['/', '/intro'] }, site)).toMatchObject({ ok: true, selection: { paths: ['', 'intro'] } });
  });
});
