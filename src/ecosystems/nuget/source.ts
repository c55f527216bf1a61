import { parseRange } from '../maven/version.js';
import { XMLParser } from 'fast-xml-parser';
import type { TarFile, TarLimits, TarReadResult } from '../../archives/tar-reader.js';
import { archiveBytes, quietly, readArchive, registryJson, registryText, type SourceHttp } from '../shared/archive.js';
import { RegistryMalformed } from '../shared/source-errors.js';
import type { PackageVersion, VersionLookup } from '../shared/package-source.js';
import { NO_PROVENANCE, type PackageRegistrySource, type Provenance } from '../shared/package-source.js';

/**
 * NuGet packages as an inventory source through the v3 API: `PACKAGE_REGISTRIES.nuget` is the
 * service index, whose `PackageBaseAddress/3.0.0` resource (the flat container) lists a package's
 * versions at `<base>/<id>/index.json` and serves `<base>/<id>/<version>/<id>.<version>.nupkg`
 * (a zip, listed whole) and its `.nuspec`, whose `<repository url commit>` is the provenance.
 * Ids and versions are lower-cased there; ids are compared case-insensitively, so targets name
 * them lower-cased.
 *
 * Versions: an exact version (`13.0.3`), NuGet's interval notation (`[13.0,14.0)`, `(,13.0.1]`,
 * `[13.0.3]`), or `latest`, the highest version that is not a pre-release.
 */

const VERSION = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function prereleaseOrder(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    const c = x.toLowerCase().localeCompare(y.toLowerCase(), 'en');
    if (c !== 0) return c;
  }
  return pa.length - pb.length;
}

/** NuGet's version order: four numeric parts (missing ones 0), a release above its pre-releases, build metadata ignored. */
export function compareNugetVersions(a: string, b: string): number {
  const ma = VERSION.exec(a);
  const mb = VERSION.exec(b);
  if (ma === null || mb === null) return ma === mb ? a.localeCompare(b) : ma === null ? -1 : 1;
  for (let i = 1; i <= 4; i++) {
    const d = Number(ma[i] ?? 0) - Number(mb[i] ?? 0);
    if (d !== 0) return d;
  }
  const [pa, pb] = [ma[5], mb[5]];
  if (pa === pb) return 0;
  if (pa === undefined) return 1;
  if (pb === undefined) return -1;
  return prereleaseOrder(pa, pb);
}

/** The highest of `versions` inside a NuGet interval range; null when the spec is not one or none fits. */
export function highestInNugetRange(spec: string, versions: readonly string[]): string | null {
  const intervals = parseRange(spec);
  if (intervals === null) return null;
  const inside = (v: string): boolean =>
    intervals.some(({ low, high }) => {
      const lo = low === null ? 1 : compareNugetVersions(v, low.version);
      const hi = high === null ? -1 : compareNugetVersions(v, high.version);
      return (lo > 0 || (lo === 0 && low?.inclusive === true)) && (hi < 0 || (hi === 0 && high?.inclusive === true));
    });
  const prereleaseAsked = /-/.test(spec);
  return versions.filter((v) => inside(v) && (prereleaseAsked || !v.includes('-'))).reduce<string | null>((best, v) => (best === null || compareNugetVersions(v, best) > 0 ? v : best), null);
}

const nuspecReader = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true, processEntities: false });

export class NugetPackageSource implements PackageRegistrySource {
  private flat: Promise<string> | null = null;

  constructor(
    private readonly serviceIndex: string,
    private readonly http: SourceHttp,
  ) {}

  /** The flat container's base URL, from the service index (asked again after a failure). */
  private base(): Promise<string> {
    this.flat ??= (async () => {
      const index = await registryJson<{ resources?: unknown }>(this.http, this.serviceIndex, (d) => Array.isArray(d.resources));
      const resources = (index?.resources ?? []) as { '@type'?: unknown; '@id'?: unknown }[];
      const id = resources.find((r) => r['@type'] === 'PackageBaseAddress/3.0.0')?.['@id'];
      if (typeof id !== 'string') throw new RegistryMalformed();
      return id.replace(/\/+$/, '');
    })();
    this.flat.catch(() => {
      this.flat = null;
    });
    return this.flat;
  }

  async lookup(name: string, spec: string | null): Promise<VersionLookup> {
    const id = name.toLowerCase();
    const base = await this.base();
    const doc = await registryJson<{ versions?: unknown }>(this.http, `${base}/${encodeURIComponent(id)}/index.json`, (d) => Array.isArray(d.versions));
    if (doc === null) return { kind: 'no_package' };
    const versions = (doc.versions as unknown[]).filter((v): v is string => typeof v === 'string' && VERSION.test(v)).map((v) => v.toLowerCase());
    let chosen: string | null;
    if (spec === null || spec === 'latest') chosen = highestInNugetRange('[0,)', versions);
    else if (/^[[(]/.test(spec)) chosen = highestInNugetRange(spec, versions);
    else chosen = versions.find((v) => compareNugetVersions(v, spec.toLowerCase()) === 0) ?? null;
    if (chosen === null) return { kind: 'no_version' };
    const nupkg = `${base}/${encodeURIComponent(id)}/${encodeURIComponent(chosen)}/${encodeURIComponent(`${id}.${chosen}`)}.nupkg`;
    return { kind: 'found', version: { name: id, version: chosen, tarball: nupkg, integrity: null, unpackedSize: null, fileCount: null } };
  }

  provenance(name: string, version: string): Promise<Provenance> {
    return quietly(NO_PROVENANCE, async () => {
      const id = name.toLowerCase();
      const text = await registryText(this.http, `${await this.base()}/${encodeURIComponent(id)}/${encodeURIComponent(version)}/${encodeURIComponent(id)}.nuspec`, 'application/xml, */*');
      if (text === null) return NO_PROVENANCE;
      const metadata = (nuspecReader.parse(text) as { package?: { metadata?: { repository?: { url?: unknown; commit?: unknown }; projectUrl?: unknown } } }).package?.metadata;
      const url = [metadata?.repository?.url, metadata?.projectUrl].find((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u)) ?? null;
      const commit = metadata?.repository?.commit;
      return { repoUrl: url, gitHead: typeof commit === 'string' && /^[0-9a-f]{40}$/i.test(commit) ? commit.toLowerCase() : null };
    });
  }

  async read(version: PackageVersion, limits: TarLimits, onFile: (file: TarFile) => Promise<void>): Promise<TarReadResult> {
    return readArchive(await archiveBytes(this.http, version.tarball), limits, onFile, 'none');
  }
}
