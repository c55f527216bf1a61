import { escapeModulePart } from './registry.js';
import { compareGoVersions, isGoVersion } from './version.js';
import type { TarFile, TarLimits, TarReadResult } from '../../archives/tar-reader.js';
import { archiveBytes, quietly, readArchive, registryJson, registryText, type SourceHttp } from '../shared/archive.js';
import type { PackageVersion, VersionLookup } from '../shared/package-source.js';
import { NO_PROVENANCE, type PackageRegistrySource, type Provenance } from '../shared/package-source.js';

/**
 * Go modules as an inventory source through the module proxy protocol (GOPROXY,
 * https://go.dev/ref/mod#goproxy-protocol): `<module>/@v/list` lists the tagged versions,
 * `@v/<version>.info` confirms one (pseudo-versions are not listed) and records its `Origin`
 * (repository URL and commit), `@latest` answers for modules without tags, `@v/<version>.zip`
 * is the module zip, every file under `<module>@<version>/`. Module paths and versions are
 * case-encoded (`!` and the lower case) in URLs.
 *
 * Versions asked for, as `go get` queries them: an exact version (a pseudo-version too),
 * `latest` (the highest release, else the highest pre-release, else the proxy's `@latest`), a
 * prefix (`v1`, `v1.8`: the highest release under it) or one comparison (`>=v1.2.0`, `<v2`).
 */

interface Info {
  readonly Version?: unknown;
  readonly Origin?: { readonly URL?: unknown; readonly Hash?: unknown };
}

const PREFIX = /^v(\d+)(?:\.(\d+))?$/;
const COMPARISON = /^(>=|<=|>|<)(v\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?)$/;

/** A comparison bound completed to a full version (`v2` → `v2.0.0`). */
function completed(v: string): string {
  const [core = '', pre] = v.split(/-(.*)/s, 2);
  const parts = core.slice(1).split('.');
  while (parts.length < 3) parts.push('0');
  return `v${parts.join('.')}${pre === undefined ? '' : `-${pre}`}`;
}

/** The `(owner, repo)` root of a module path on a known code host, as the go command maps them. */
function hostedRepository(module: string): string | null {
  const m = /^(github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)\/([^/]+)\/([^/]+)/.exec(module);
  return m === null ? null : `https://${m[1] ?? ''}/${m[2] ?? ''}/${m[3] ?? ''}`;
}

function highest(versions: readonly string[]): string | null {
  let best: string | null = null;
  for (const v of versions) if (best === null || compareGoVersions(v, best) > 0) best = v;
  return best;
}

export class GoPackageSource implements PackageRegistrySource {
  constructor(
    private readonly base: string,
    private readonly http: SourceHttp,
  ) {}

  private url(module: string, rest: string): string {
    return `${this.base.replace(/\/+$/, '')}/${escapeModulePart(module)}/${rest}`;
  }

  private info(module: string, version: string): Promise<Info | null> {
    return registryJson<Info>(this.http, this.url(module, `@v/${escapeModulePart(version)}.info`), (doc) => typeof doc.Version === 'string');
  }

  private found(module: string, version: string): VersionLookup {
    return {
      kind: 'found',
      version: { name: module, version, tarball: this.url(module, `@v/${escapeModulePart(version)}.zip`), integrity: null, unpackedSize: null, fileCount: null },
    };
  }

  async lookup(module: string, spec: string | null): Promise<VersionLookup> {
    const list = await registryText(this.http, this.url(module, '@v/list'), 'text/plain');
    if (list === null) return { kind: 'no_package' };
    const versions = list.split('\n').map((l) => l.trim()).filter(isGoVersion);
    const releases = versions.filter((v) => !v.includes('-'));
    if (spec !== null && isGoVersion(spec)) {
      if (versions.includes(spec)) return this.found(module, spec);
      const info = await this.info(module, spec);
      return info === null ? { kind: 'no_version' } : this.found(module, String(info.Version));
    }
    if (spec === null || spec === 'latest') {
      const chosen = highest(releases) ?? highest(versions);
      if (chosen !== null) return this.found(module, chosen);
      const latest = await registryJson<Info>(this.http, this.url(module, '@latest'), (doc) => typeof doc.Version === 'string');
      return latest === null || !isGoVersion(String(latest.Version)) ? { kind: 'no_version' } : this.found(module, String(latest.Version));
    }
    const prefix = PREFIX.exec(spec);
    if (prefix !== null) {
      const chosen = highest(releases.filter((v) => v.startsWith(`${spec}.`)));
      return chosen === null ? { kind: 'no_version' } : this.found(module, chosen);
    }
    const comparison = COMPARISON.exec(spec);
    if (comparison !== null) {
      const [, op = '', bound = ''] = comparison;
      const b = completed(bound);
      const keep = (v: string): boolean => {
        const c = compareGoVersions(v, b);
        return op === '>=' ? c >= 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c < 0;
      };
      const chosen = highest(releases.filter(keep)) ?? highest(versions.filter(keep));
      return chosen === null ? { kind: 'no_version' } : this.found(module, chosen);
    }
    return { kind: 'no_version' };
  }

  provenance(module: string, version: string): Promise<Provenance> {
    return quietly(NO_PROVENANCE, async () => {
      const origin = (await this.info(module, version))?.Origin;
      const url = typeof origin?.URL === 'string' && /^https?:\/\//.test(origin.URL) ? origin.URL : null;
      const hash = typeof origin?.Hash === 'string' && /^[0-9a-f]{40}$/.test(origin.Hash) ? origin.Hash : null;
      return { repoUrl: url ?? hostedRepository(module), gitHead: hash };
    });
  }

  async read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    // Every file of a module zip sits under `<module>@<version>/`, the module path unencoded.
    return readArchive(await archiveBytes(this.http, version.tarball), limits, onFile, { prefix: `${version.name}@${version.version}/` });
  }
}
