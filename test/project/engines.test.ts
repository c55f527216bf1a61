import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface Lock {
  readonly packages: Record<string, { readonly version?: string; readonly dev?: boolean; readonly optional?: boolean; readonly devOptional?: boolean; readonly engines?: { readonly node?: string } | readonly string[] }>;
}

const root = new URL('../../', import.meta.url);
const rootDir = fileURLToPath(root);

/** The service's TypeScript sources (what `npm start` runs). */
function sources(dir = rootDir, under: readonly string[] = ['src']): string[] {
  return under.flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path, readdirSync(path));
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The release lines FEATURES knows the versions of. */
const KNOWN_LINES = [20, 22, 24];

/**
 * Node APIs newer than Node 20.0, with the versions of each line that have them (from Node's
 * changelogs), and how a use looks in the sources. One in use that an admitted version lacks
 * fails at run time there, while the tests pass on a newer Node.
 */
const FEATURES: readonly { readonly name: string; readonly since: string; readonly use: RegExp }[] = [
  { name: 'AbortSignal.any', since: '>=20.3.0', use: /\bAbortSignal\.any\(/ },
  { name: 'import.meta.dirname/filename', since: '>=20.11.0', use: /\bimport\.meta\.(?:dirname|filename)\b/ },
  { name: 'process.loadEnvFile', since: '>=20.12.0', use: /\bprocess\.loadEnvFile\(/ },
  { name: 'util.styleText', since: '>=20.12.0', use: /\bstyleText\b/ },
  { name: 'process.getBuiltinModule', since: '^20.16.0 || >=22.3.0', use: /\bgetBuiltinModule\(/ },
  { name: 'require() of ES modules without a flag', since: '^20.19.0 || >=22.12.0', use: /\bprocess\.features\.require_module\b/ },
  { name: 'Object.groupBy / Map.groupBy', since: '>=21.0.0', use: /\b(?:Object|Map)\.groupBy\(/ },
  { name: 'Promise.withResolvers', since: '>=22.0.0', use: /\bPromise\.withResolvers\(/ },
  { name: 'Array.fromAsync', since: '>=22.0.0', use: /\bArray\.fromAsync\(/ },
  { name: 'Set methods (union, intersection, …)', since: '>=22.0.0', use: /\.(?:union|intersection|symmetricDifference|isSubsetOf|isSupersetOf|isDisjointFrom)\(/ },
  { name: 'iterator helpers (Iterator.from, .drop, .take, .toArray on iterators)', since: '>=22.0.0', use: /\bIterator\.from\(|\.values\(\)\.(?:map|filter|take|drop|toArray|flatMap|reduce|some|every|find)\(/ },
  { name: 'fs.glob', since: '>=22.0.0', use: /\bglob(?:Sync)?\b.*from 'node:fs(?:\/promises)?'|from 'node:fs(?:\/promises)?'.*\bglob\b/ },
  { name: 'node:sqlite', since: '>=22.5.0', use: /from 'node:sqlite'/ },
  { name: 'RegExp.escape', since: '>=24.0.0', use: /\bRegExp\.escape\(/ },
  { name: 'Float16Array', since: '>=24.0.0', use: /\bFloat16Array\b/ },
  { name: 'using declarations', since: '>=24.0.0', use: /^\s*(?:await\s+)?using\s+\w+\s*=/m },
];
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

  it('have every Node API the service uses, at the lowest version of each line they admit', () => {
    const lowest = manifest.engines.node.split('||').map((range) => semver.minVersion(range.trim())?.version ?? range);
    const missing: string[] = [];
    for (const file of sources()) {
      const text = readFileSync(file, 'utf8');
      for (const feature of FEATURES) {
        if (!feature.use.test(text)) continue;
        for (const version of lowest) {
          if (!semver.satisfies(version, feature.since)) missing.push(`${relative(rootDir, file)} uses ${feature.name} (Node ${feature.since}); Node ${version} is admitted`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('admit the Node the tests run on, and no line the feature table does not know', () => {
    expect(semver.satisfies(process.version, manifest.engines.node)).toBe(true);
    // A new line (say ^26) needs its versions in FEATURES before the check above means anything.
    const lines = manifest.engines.node.split('||').map((range) => semver.minVersion(range.trim())?.major);
    expect(lines.every((major) => major !== undefined && KNOWN_LINES.includes(major))).toBe(true);
  });

  it('builds incrementally, so npm start rebuilds only what changed', () => {
    expect(manifest.scripts['build']).toMatch(/^tsc -b /);
    expect(manifest.scripts['prestart']).toBe('npm run build');
  });
});
