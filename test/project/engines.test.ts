import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface Lock {
  readonly packages: Record<string, { readonly version?: string; readonly dev?: boolean; readonly optional?: boolean; readonly devOptional?: boolean; readonly engines?: { readonly node?: string } | readonly string[] }>;
}

const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string }; scripts: Record<string, string> };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as Lock;

describe('the Node versions the package declares', () => {
  it('are supported by every locked dependency the service or the tests use', () => {
    const unsupported: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const node = Array.isArray(entry.engines) ? undefined : (entry.engines as { node?: string } | undefined)?.node;
      if (path === '' || node === undefined) continue;
      // Optional dependencies of development tools are left aside: cdxgen's source-code parser
      // (@appthreat/atom, Node 22+) is one, and the tests use only cdxgen's validator. npm installs
      // it with an EBADENGINE warning on Node 20; nothing the service or the tests run needs it.
      if (entry.dev === true && entry.optional === true) continue;
      // Every version the package admits must be one the dependency admits.
      if (!semver.subset(manifest.engines.node, node)) unsupported.push(`${path}@${entry.version ?? '?'} needs node ${node}`);
    }
    expect(unsupported).toEqual([]);
  });

  it('are what the tests run on', () => {
    expect(semver.satisfies(process.version, manifest.engines.node)).toBe(true);
  });

  it('builds incrementally, so npm start rebuilds only what changed', () => {
    expect(manifest.scripts['build']).toMatch(/^tsc -b /);
    expect(manifest.scripts['prestart']).toBe('npm run build');
  });
});
