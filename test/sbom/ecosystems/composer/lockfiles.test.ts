import { describe, expect, it } from 'vitest';
import { composerEcosystem } from '../../../../src/ecosystems/composer/analysis.js';
import { buildThrough, components, rootsOf } from '../../../helpers/ecosystem.js';
import { edgesFrom, fixtureUpload, inScope } from '../../../helpers/ecosystem-fixtures.js';

const php = composerEcosystem(null);
const shop = (only?: string[]) => fixtureUpload('composer', 'shop', only);

/** Entries of `packages` and `packages-dev`, counted from the JSON without the parser. */
function lockEntries(content: string): { packages: number; dev: number } {
  const doc = JSON.parse(content) as { packages: unknown[]; 'packages-dev': unknown[] };
  return { packages: doc.packages.length, dev: doc['packages-dev'].length };
}

describe('composer.lock', () => {
  it('one component per entry of packages (required) and packages-dev (excluded)', async () => {
    const files = shop();
    const result = await buildThrough(php, files);
    expect(result.problems).toEqual([]);
    const counts = lockEntries(files.find((f) => f.path === 'composer.lock')?.content ?? '{}');
    expect(inScope(result, 'required')).toHaveLength(counts.packages);
    expect(inScope(result, 'dev')).toEqual(['phpunit/phpunit@10.5.10', 'sebastian/diff@5.1.0', 'symfony/var-dumper@v7.0.3']);
    expect(components(result)).toHaveLength(counts.packages + counts.dev);
    expect(rootsOf(result).map((o) => [o.name, o.license])).toEqual([['acme/shop', 'proprietary']]);
    expect(result.inventory.lockfiles).toEqual([{ path: 'composer.lock', kind: 'composer.lock', version: '2.6.0', entries: 15 }]);
    expect(result.inventory.associations).toEqual([{ manifest: 'composer.json', lockfile: 'composer.lock', role: 'root' }]);
  });

  it('edges follow require to exact entries: names case-insensitive, replace and provide resolve to their entry, platform never', async () => {
    const result = await buildThrough(php, shop());
    // acme/support is replaced by acme/framework; Monolog/Monolog is monolog/monolog.
    expect(edgesFrom(result, 'acme/shop')).toEqual([
      'acme/framework@v2.3.1 (prod)', 'acme/local-tools@dev-main (prod)', 'acme/private-sdk@dev-main (prod)', 'acme/stack@1.0.0 (prod)',
      'composer/installers@v2.2.0 (prod)', 'monolog/monolog@3.5.0 (prod)', 'phpunit/phpunit@10.5.10 (dev)', 'symfony/var-dumper@v7.0.3 (dev)',
    ]);
    // psr/log-implementation is provided by monolog; php is a platform requirement.
    expect(edgesFrom(result, 'acme/private-sdk')).toEqual(['guzzlehttp/guzzle@7.8.1 (prod)', 'monolog/monolog@3.5.0 (prod)']);
    expect(edgesFrom(result, 'acme/local-tools')).toEqual(['psr/log@3.0.0 (prod)']);
    // require-dev of a dependency is never installed; ext-mbstring is platform.
    expect(edgesFrom(result, 'acme/framework')).toEqual(['psr/log@3.0.0 (prod)', 'symfony/polyfill-mbstring@v1.29.0 (prod)']);
    expect(edgesFrom(result, 'composer/installers')).toEqual([]);
    expect(result.inventory.occurrences.some((o) => /^(php|ext-.+|composer-plugin-api)$/.test(o.name))).toBe(false);
    expect(result.inventory.declarations.map((d) => `${d.name} ${d.range} (${d.kind})`)).toEqual(['php ^8.2 (platform)', 'ext-json * (platform)', 'ext-xdebug * (platform-dev)']);
    expect(result.inventory.notices).toEqual([]);
  });

  it('sources, purls, sha1 integrity, licenses and the lock’s facts', async () => {
    const result = await buildThrough(php, shop());
    const by = (name: string) => result.inventory.occurrences.find((o) => o.name === name);
    const purl = (name: string) => {
      const o = by(name);
      return o === undefined ? undefined : php.purl(o);
    };
    expect(purl('symfony/polyfill-mbstring')).toBe('pkg:composer/symfony/polyfill-mbstring@v1.29.0');
    expect(purl('acme/private-sdk')).toBe('pkg:composer/acme/private-sdk@dev-main?vcs_url=git%2Bhttps%3A%2F%2Fgithub.com%2Facme%2Fprivate-sdk.git%409f1c2e3d4b5a69788776655443322110ffeeddcc');
    expect(purl('acme/local-tools')).toBeNull();
    expect(purl('acme/shop')).toBeNull();
    expect([by('acme/private-sdk')?.source, by('acme/local-tools')?.source, by('acme/stack')?.source]).toEqual(['git', 'file', 'registry']);
    expect(by('guzzlehttp/guzzle')?.integrity).toBe(`sha1-${Buffer.from('c928fcf0605a0b74357c396646da4c65ac010d56', 'hex').toString('base64')}`);
    expect(by('guzzlehttp/promises')?.integrity).toBeNull();
    expect(by('acme/private-sdk')?.license).toBe('(LGPL-2.1-only OR GPL-3.0-or-later)');
    expect(by('sebastian/diff')?.license).toBe('BSD-3-Clause');
    expect(by('acme/private-sdk')?.facts).toEqual({ alias: '1.4.x-dev', stability: 'dev' });
    expect(by('acme/stack')?.facts).toEqual({ type: 'metapackage' });
    expect(by('composer/installers')?.facts).toEqual({ type: 'composer-plugin' });
    expect(by('psr/http-message')?.facts).toEqual({ version_normalized: '2.0.0.0' });
    expect(by('acme/shop')?.facts).toEqual({ content_hash: '3f2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d' });
  });

  it('without composer.json the project is the folder and requires what nothing else does', async () => {
    const lock = shop(['composer.lock'])[0];
    if (!lock) throw new Error('fixture');
    const result = await buildThrough(php, [{ path: 'apps/shop/composer.lock', content: lock.content }]);
    expect(rootsOf(result).map((o) => o.name)).toEqual(['shop']);
    expect(edgesFrom(result, 'shop')).toEqual([
      'acme/local-tools@dev-main (prod)', 'acme/private-sdk@dev-main (prod)', 'acme/stack@1.0.0 (prod)', 'composer/installers@v2.2.0 (prod)',
      'phpunit/phpunit@10.5.10 (dev)', 'symfony/var-dumper@v7.0.3 (dev)',
    ]);
    expect(inScope(result, 'dev')).toHaveLength(3);
    expect(result.inventory.declarations.map((d) => d.manifest)).toEqual(['apps/shop/composer.lock', 'apps/shop/composer.lock', 'apps/shop/composer.lock']);
  });

  it('a requirement no entry satisfies is a notice; an empty platform map written as [] is none', async () => {
    const lock = JSON.stringify({ packages: [{ name: 'a/b', version: '1.0.0', require: { 'c/d': '^1.0' }, 'notification-url': 'https://packagist.org/downloads/' }], 'packages-dev': [], platform: [], 'platform-dev': [] });
    const result = await buildThrough(php, [{ path: 'composer.lock', content: lock }]);
    expect(components(result)).toHaveLength(1);
    expect(result.inventory.notices).toEqual(['composer.lock requires c/d, which no entry provides']);
    expect(result.inventory.declarations).toEqual([]);
  });
});

describe('packages of other repositories', () => {
  it('a private Composer repository’s package is an archive with repository_url, never a Packagist coordinate', async () => {
    const dist = (name: string) => ({ type: 'zip', url: `https://repo.acme.example/dist/${name}.zip`, reference: 'abc', shasum: '' });
    const lock = JSON.stringify({
      packages: [
        { name: 'acme/billing', version: '4.1.0', dist: dist('billing'), 'notification-url': 'https://repo.acme.example/downloads/' },
        { name: 'acme/odd', version: '1.0.0', dist: dist('odd'), 'notification-url': 'not a url' },
      ],
      'packages-dev': [],
    });
    const result = await buildThrough(php, [{ path: 'composer.lock', content: lock }]);
    expect(result.problems).toEqual([]);
    const [billing, odd] = components(result);
    expect([billing?.source, billing && php.purl(billing)]).toEqual(['tarball', 'pkg:composer/acme/billing@4.1.0?repository_url=https%3A%2F%2Frepo.acme.example']);
    expect([odd?.source, odd && php.purl(odd)]).toEqual(['tarball', 'pkg:composer/acme/odd@1.0.0']);
  });
});

describe('composer.json without a lock', () => {
  it('the project and its requirements as declarations, platform ones included', async () => {
    const result = await buildThrough(php, shop(['composer.json']));
    expect(components(result)).toEqual([]);
    expect(rootsOf(result).map((o) => o.name)).toEqual(['acme/shop']);
    expect(result.inventory.declarations).toHaveLength(12);
    expect(result.inventory.declarations.filter((d) => d.kind === 'require-dev').map((d) => d.name)).toEqual(['ext-xdebug', 'phpunit/phpunit', 'symfony/var-dumper']);
    expect(result.inventory.resolutions).toEqual([expect.objectContaining({ manifest: 'composer.json', outcome: 'resolution_failed' })]);
  });
});

describe('malformed Composer files', () => {
  it('invalid JSON is a problem naming the file, line and column, never a throw', async () => {
    const result = await buildThrough(php, [{ path: 'web/composer.lock', content: '{\n  "packages": [\n    {"name": "a/b",, "version": "1.0"}\n  ]\n}' }]);
    expect(result.problems).toEqual([expect.objectContaining({ path: 'web/composer.lock', reason: 'malformed', line: 3 })]);
    expect(result.inventory.notices[0]).toContain('web/composer.lock was skipped');
  });

  it('entries without a name or version, and a manifest that is not an object, are problems', async () => {
    const a = await buildThrough(php, [{ path: 'composer.lock', content: JSON.stringify({ packages: [{ name: 'a/b' }] }) }]);
    expect(a.problems).toEqual([expect.objectContaining({ path: 'composer.lock', reason: 'malformed', package: 'a/b' })]);
    const c = await buildThrough(php, [{ path: 'composer.lock', content: JSON.stringify({ packages: { 'a/b': { version: '1.0.0' } } }) }]);
    expect(c.problems).toEqual([{ path: 'composer.lock', reason: 'malformed', message: '"packages" is not an array' }]);
    const b = await buildThrough(php, [{ path: 'composer.json', content: '{"name": "x/y", "require": {"a/b": "^1"}' }]);
    expect(b.problems).toEqual([expect.objectContaining({ path: 'composer.json', reason: 'malformed' })]);
  });
});
