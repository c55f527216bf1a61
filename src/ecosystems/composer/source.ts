import semver from 'semver';
import { expandMinified, packageUrl } from './registry.js';
import type { TarFile, TarLimits, TarReadResult } from '../../archives/tar-reader.js';
import { archiveBytes, quietly, readArchive, registryJson, type SourceHttp } from '../shared/archive.js';
import { RegistryMalformed } from '../shared/source-errors.js';
import type { PackageVersion, VersionLookup } from '../shared/package-source.js';
import { NO_PROVENANCE, type PackageRegistrySource, type Provenance } from '../shared/package-source.js';
import { nonEmpty as text } from '../shared/narrow.js';

/**
 * Packagist (Composer v2 repository) as an inventory source: `GET /p2/<vendor>/<name>.json`
 * lists the tagged versions (minified), each with its `dist` (the archive, usually a GitHub
 * zipball under one `<owner>-<repo>-<sha>/` folder, stripped) and `source` (the repository and
 * the commit the tag points at: the provenance). Branch versions (`dev-main`) are not targets.
 *
 * Versions are Composer constraints, translated to node-semver ranges (`composerRange`): an
 * exact version with or without its `v`, `^7.1`, `~7.1` (Composer's tilde: `>=7.1 <8`),
 * `7.1.*`, comparisons, `,`/space for and, `|`/`||` for or; `latest` is the highest stable.
 */

interface ComposerVersion {
  readonly version: string;
  readonly semver: string;
  readonly dist: string | null;
  readonly source: { readonly url: string | null; readonly reference: string | null };
}

/** A Composer version as node-semver: `v` dropped, `-RC1`/`-beta2` kept as pre-releases; null when it has four parts or a branch. */
function semverOf(version: string): string | null {
  return semver.valid(version.replace(/^v/i, ''), { loose: true });
}

/** One Composer constraint term as node-semver; null when it has no equivalent (`!=`). */
function term(text: string): string | null {
  const t = text.replace(/@(stable|RC|beta|alpha|dev)$/i, '');
  const m = /^(~|\^|>=|<=|>|<|==|=|!=)?\s*v?(.+)$/i.exec(t);
  if (m === null) return null;
  const [, op = '', version = ''] = m;
  if (op === '!=') return null;
  if (op === '~') {
    const parts = version.split('.');
    if (parts.length <= 2) return `>=${[...parts, '0', '0'].slice(0, 3).join('.')} <${Number(parts[0]) + 1}.0.0-0`;
    return `~${version}`;
  }
  return `${op === '==' ? '=' : op}${version}`;
}

/** A Composer constraint as a node-semver range; null when it cannot be translated. */
export function composerRange(constraint: string): string | null {
  const alternatives = constraint.split(/\s*\|\|?\s*/);
  const out: string[] = [];
  for (const alt of alternatives) {
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(alt.trim());
    if (hyphen !== null) {
      out.push(`${hyphen[1] ?? ''} - ${hyphen[2] ?? ''}`);
      continue;
    }
    const terms = alt
      .trim()
      .replace(/(~|\^|>=|<=|>|<|==|=|!=)\s+/g, '$1')
      .split(/\s*,\s*|\s+/)
      .filter((t) => t !== '')
      .map(term);
    if (terms.length === 0 || terms.includes(null)) return null;
    out.push(terms.join(' '));
  }
  const range = out.join(' || ');
  return semver.validRange(range, { loose: true }) === null ? null : range;
}

export class PackagistPackageSource implements PackageRegistrySource {
  private readonly base: string;

  constructor(
    base: string,
    private readonly http: SourceHttp,
  ) {
    this.base = base.replace(/\/+$/, '');
  }

  private async versions(name: string): Promise<ComposerVersion[] | null> {
    const doc = await registryJson<{ packages?: Record<string, unknown> }>(
      this.http,
      packageUrl(this.base, name),
      (d) => typeof d.packages === 'object' && (d.packages as unknown) !== null,
    );
    if (doc === null) return null;
    const listed: unknown = (doc.packages as Record<string, unknown>)[name];
    if (listed === undefined) return null;
    if (!Array.isArray(listed)) throw new RegistryMalformed();
    return expandMinified(listed).flatMap((v) => {
      const version = text(v['version']);
      const sv = version === null ? null : semverOf(version);
      if (version === null || sv === null) return [];
      const dist = v['dist'] as { url?: unknown } | undefined;
      const source = v['source'] as { url?: unknown; reference?: unknown } | undefined;
      return [{ version, semver: sv, dist: text(dist?.url), source: { url: text(source?.url), reference: text(source?.reference) } }];
    });
  }

  async lookup(name: string, spec: string | null): Promise<VersionLookup> {
    const versions = await this.versions(name);
    if (versions === null) return { kind: 'no_package' };
    let chosen: ComposerVersion | undefined;
    const exact = spec === null ? undefined : versions.find((v) => v.version === spec || v.version.replace(/^v/i, '') === spec.replace(/^v/i, ''));
    if (exact !== undefined) chosen = exact;
    else {
      const range = spec === null || spec === 'latest' ? '*' : composerRange(spec);
      if (range === null) return { kind: 'no_version' };
      const best = semver.maxSatisfying(
        versions.map((v) => v.semver),
        range,
        { loose: true },
      );
      chosen = versions.find((v) => v.semver === best);
    }
    if (chosen === undefined) return { kind: 'no_version' };
    return { kind: 'found', version: { name, version: chosen.version, tarball: chosen.dist, integrity: null, unpackedSize: null, fileCount: null } };
  }

  provenance(name: string, version: string): Promise<Provenance> {
    return quietly(NO_PROVENANCE, async () => {
      const found = (await this.versions(name))?.find((v) => v.version === version);
      const reference = found?.source.reference ?? null;
      return { repoUrl: found?.source.url ?? null, gitHead: reference !== null && /^[0-9a-f]{40}$/i.test(reference) ? reference.toLowerCase() : null };
    });
  }

  async read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    return readArchive(await archiveBytes(this.http, version.tarball), limits, onFile, 'top');
  }
}
