import semver from 'semver';
import type { TarFile, TarLimits, TarReadResult } from '../../archives/tar-reader.js';
import { archiveBytes, readArchive, registryJson, type SourceHttp } from '../shared/archive.js';
import { RegistryMalformed } from '../shared/source-errors.js';
import type { PackageVersion, VersionLookup } from '../shared/package-source.js';
import type { PackageRegistrySource, Provenance } from '../shared/package-source.js';
import { crateUrl } from './registry.js';

/**
 * crates.io as an inventory source: `GET /api/v1/crates/<name>` lists the versions (with
 * `yanked` and `dl_path`), the `.crate` (a gzip tar under `<name>-<version>/`) comes from
 * `/api/v1/crates/<name>/<version>/download`. Requirements are Cargo's: a bare version is a
 * caret requirement, comparators are comma-separated; an exact version pins (a yanked one too).
 */

interface CrateVersionDoc {
  readonly num?: unknown;
  readonly yanked?: unknown;
  readonly dl_path?: unknown;
}

interface CrateDoc {
  readonly crate?: { readonly name?: unknown; readonly repository?: unknown };
  readonly versions?: unknown;
}

/** A Cargo requirement as a node-semver range: bare versions are carets, commas are ANDs. */
export function cargoRange(spec: string): string | null {
  const parts = spec.split(',').map((p) => p.trim());
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' ) return null;
    if (part === '*') out.push('*');
    else if (/^[0-9]/.test(part)) out.push(`^${part}`);
    else out.push(part.replace(/^(>=|<=|>|<|=|~|\^)\s*/, '$1'));
  }
  const range = out.join(' ');
  return semver.validRange(range) === null ? null : range;
}

export class CratesPackageSource implements PackageRegistrySource {
  constructor(
    private readonly base: string,
    private readonly http: SourceHttp,
  ) {}

  private crate(name: string): string {
    return crateUrl(this.base.replace(/\/+$/, ''), name);
  }

  private doc(name: string): Promise<CrateDoc | null> {
    return registryJson<CrateDoc>(this.http, this.crate(name), (doc) => Array.isArray(doc.versions));
  }

  async lookup(name: string, spec: string | null): Promise<VersionLookup> {
    const doc = await this.doc(name);
    if (doc === null) return { kind: 'no_package' };
    const versions: { num: string; yanked: boolean }[] = [];
    for (const v of doc.versions as unknown[]) {
      if (typeof v !== 'object' || v === null || typeof (v as CrateVersionDoc).num !== 'string') throw new RegistryMalformed();
      const { num, yanked } = v as CrateVersionDoc & { num: string };
      if (semver.valid(num) !== null) versions.push({ num, yanked: yanked === true });
    }
    const canonical = typeof doc.crate?.name === 'string' ? doc.crate.name : name;
    let chosen: string | null;
    if (spec !== null && semver.valid(spec) === spec) {
      chosen = versions.some((v) => v.num === spec) ? spec : null;
    } else {
      const range = spec === null || spec === 'latest' ? '*' : cargoRange(spec);
      if (range === null) return { kind: 'no_version' };
      const candidates = versions.filter((v) => !v.yanked).map((v) => v.num);
      // Prereleases only when the requirement names one, as Cargo does.
      chosen = semver.maxSatisfying(candidates, range);
    }
    if (chosen === null) return { kind: 'no_version' };
    return {
      kind: 'found',
      version: {
        name: canonical,
        version: chosen,
        tarball: `${this.crate(canonical)}/${encodeURIComponent(chosen)}/download`,
        integrity: null,
        unpackedSize: null,
        fileCount: null,
      },
    };
  }

  async provenance(name: string, _version: string): Promise<Provenance> {
    try {
      const doc = await this.doc(name);
      const repo = doc?.crate?.repository;
      return { repoUrl: typeof repo === 'string' && repo !== '' ? repo : null, gitHead: null };
    } catch {
      return { repoUrl: null, gitHead: null };
    }
  }

  async read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    return readArchive(await archiveBytes(this.http, version.tarball), limits, onFile, 'top');
  }
}
