import { Readable } from 'node:stream';
import semver from 'semver';
import { readTarball, TarLimitError, type TarFile, type TarLimits, type TarReadResult } from '../../archives/tar-reader.js';
import { archiveBytes, quietly, registryJson, tarMembers, type SourceHttp } from '../shared/archive.js';
import type { PackageVersion, VersionLookup } from '../shared/package-source.js';
import { codeHostRepository } from '../shared/repo-url.js';
import { NO_PROVENANCE, type PackageRegistrySource, type Provenance } from '../shared/package-source.js';
import { packageUrl } from './registry.js';

/**
 * Hex packages as an inventory source: the Hex API (`PACKAGE_REGISTRIES.hex`,
 * `GET /api/packages/<name>`) lists the `releases` and the package's `meta.links`; the tarball
 * comes from the repository (`PACKAGE_REGISTRIES.hex_repo`, `/tarballs/<name>-<version>.tar`),
 * a plain tar whose `contents.tar.gz` holds the package's files (no top folder).
 *
 * Versions are Elixir requirements (`1.7.14`, `~> 1.7`, `>= 1.0.0 and < 2.0.0`, `or`), translated
 * to node-semver (`elixirRange`); `latest` is the highest version that is not a pre-release.
 */

/** `~> 1.7` is `>= 1.7.0 and < 2.0.0`; `~> 1.7.14` is `>= 1.7.14 and < 1.8.0`. */
function pessimistic(version: string): string | null {
  const parts = version.split(/[-+]/, 1)[0]?.split('.') ?? [];
  if (parts.length < 2 || parts.some((p) => !/^\d+$/.test(p))) return null;
  const full = parts.length === 2 ? `${version}.0` : version;
  const upper = parts.length === 2 ? `${Number(parts[0]) + 1}.0.0` : `${parts[0] ?? ''}.${Number(parts[1]) + 1}.0`;
  return `>=${full} <${upper}-0`;
}

/** An Elixir version requirement as a node-semver range; null when it has no equivalent (`!=`). */
export function elixirRange(requirement: string): string | null {
  const alternatives = requirement.split(/\s+or\s+/);
  const out: string[] = [];
  for (const alt of alternatives) {
    const terms: string[] = [];
    for (const clause of alt.split(/\s+and\s+/)) {
      const m = /^\s*(~>|==|>=|<=|>|<|=)?\s*(\S+)\s*$/.exec(clause);
      if (m === null) return null;
      const [, op = '==', version = ''] = m;
      const t = op === '~>' ? pessimistic(version) : `${op === '==' ? '=' : op}${version}`;
      if (t === null) return null;
      terms.push(t);
    }
    out.push(terms.join(' '));
  }
  const range = out.join(' || ');
  return semver.validRange(range) === null ? null : range;
}

interface HexPackage {
  readonly releases?: unknown;
  readonly meta?: { readonly links?: unknown };
}

export class HexPackageSource implements PackageRegistrySource {
  private readonly api: string;
  private readonly repo: string;

  constructor(
    api: string,
    repo: string,
    private readonly http: SourceHttp,
  ) {
    this.api = api.replace(/\/+$/, '');
    this.repo = repo.replace(/\/+$/, '');
  }

  private doc(name: string): Promise<HexPackage | null> {
    return registryJson<HexPackage>(this.http, packageUrl(this.api, name), (d) => Array.isArray(d.releases));
  }

  async lookup(name: string, spec: string | null): Promise<VersionLookup> {
    const doc = await this.doc(name);
    if (doc === null) return { kind: 'no_package' };
    const versions = (doc.releases as unknown[]).flatMap((r) => {
      const v = (r as { version?: unknown } | null)?.version;
      return typeof v === 'string' && semver.valid(v) !== null ? [v] : [];
    });
    let chosen: string | null;
    if (spec !== null && semver.valid(spec) === spec) chosen = versions.includes(spec) ? spec : null;
    else {
      const range = spec === null || spec === 'latest' ? '*' : elixirRange(spec);
      chosen = range === null ? null : semver.maxSatisfying(versions, range);
    }
    if (chosen === null) return { kind: 'no_version' };
    const tarball = `${this.repo}/tarballs/${encodeURIComponent(`${name}-${chosen}`)}.tar`;
    return { kind: 'found', version: { name, version: chosen, tarball, integrity: null, unpackedSize: null, fileCount: null } };
  }

  provenance(name: string, _version: string): Promise<Provenance> {
    return quietly(NO_PROVENANCE, async () => {
      const links = (await this.doc(name))?.meta?.links;
      const urls = typeof links === 'object' && links !== null ? Object.values(links as Record<string, unknown>) : [];
      return { repoUrl: codeHostRepository(urls), gitHead: null };
    });
  }

  async read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    const outer = await archiveBytes(this.http, version.tarball);
    const contents = (await tarMembers(outer, limits, ['contents.tar.gz'])).get('contents.tar.gz');
    if (contents === undefined) throw new TarLimitError('corrupt', 'the Hex tarball has no contents.tar.gz');
    const result = await readTarball(Readable.from([contents]), limits, onFile, { root: 'none' });
    return { ...result, compressedBytes: outer.length };
  }
}
