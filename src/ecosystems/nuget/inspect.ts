import { baseOf, type SourceContext } from '../registration.js';
import { registryJson, type SourceHttp } from '../shared/archive.js';
import { isoDate, withdrawn, type DeclaredDependency, type InspectedPackage, type InspectedRelease, type PackageInspector } from '../shared/inspect.js';
import { record, text } from '../shared/narrow.js';
import { nugetMetadata } from './registry.js';
import { compareNugetVersions } from './source.js';

/**
 * NuGet inspection through the v3 registration resource (the service index's
 * `RegistrationsBaseUrl`, its SemVer 2.0.0 variant when offered): `<base>/<id>/index.json` holds
 * pages of leaves, each leaf's `catalogEntry` with `version`, `published`, `listed` (false:
 * unlisted, still restorable but not offered), `deprecation`, `licenseExpression` and
 * `dependencyGroups` per target framework. Pages not inlined are read from their `@id`.
 */

const PREFERRED = ['RegistrationsBaseUrl/3.6.0', 'RegistrationsBaseUrl/3.4.0', 'RegistrationsBaseUrl/3.0.0-rc', 'RegistrationsBaseUrl/3.0.0-beta', 'RegistrationsBaseUrl'];
/** Pages read per package (nuget.org pages hold 64 versions): the newest are the last pages. */
const MAX_PAGES = 8;

type Entry = Record<string, unknown>;

function dependencyGroups(entry: Entry): DeclaredDependency[] {
  const groups = Array.isArray(entry['dependencyGroups']) ? (entry['dependencyGroups'] as unknown[]).map(record) : [];
  return groups.flatMap((g) => {
    const framework = text(g?.['targetFramework']);
    const deps = Array.isArray(g?.['dependencies']) ? (g['dependencies'] as unknown[]).map(record) : [];
    return deps.flatMap((d) => (d === null || text(d['id']) === null ? [] : [{ name: String(d['id']), requirement: text(d['range']), kind: framework ?? 'any', optional: false }]));
  });
}

class NugetInspector implements PackageInspector {
  private registrations: Promise<string | null> | null = null;
  /** The catalog entries `package` read last, per lower-cased id, for `release`. */
  private readonly entries = new Map<string, Entry[]>();

  constructor(
    private readonly index: string,
    private readonly http: SourceHttp,
  ) {}

  private root(): Promise<string | null> {
    this.registrations ??= (async () => {
      const index = await registryJson<{ resources?: unknown }>(this.http, this.index, (d) => Array.isArray(d.resources));
      const resources = ((index?.resources as unknown[] | undefined) ?? []).map(record);
      for (const type of PREFERRED) {
        const id = text(resources.find((r) => r?.['@type'] === type)?.['@id']);
        if (id !== null) return id.endsWith('/') ? id : `${id}/`;
      }
      return null;
    })();
    this.registrations.catch(() => {
      this.registrations = null;
    });
    return this.registrations;
  }

  private async catalog(name: string): Promise<{ entries: Entry[]; count: number } | null> {
    const root = await this.root();
    if (root === null) return null;
    const index = await registryJson<{ items?: unknown }>(this.http, `${root}${encodeURIComponent(name.toLowerCase())}/index.json`, (d) => Array.isArray(d.items));
    if (index === null) return null;
    const all = (index.items as unknown[]).map(record).filter((p): p is Entry => p !== null);
    const count = all.reduce((n, p) => n + (typeof p['count'] === 'number' ? p['count'] : 0), 0);
    const pages = all.slice(-MAX_PAGES);
    const leaves = await Promise.all(
      pages.map(async (page) => {
        if (Array.isArray(page['items'])) return page['items'] as unknown[];
        const url = text(page['@id']);
        const read = url === null ? null : await registryJson<{ items?: unknown }>(this.http, url, (d) => Array.isArray(d.items));
        return (read?.items as unknown[] | undefined) ?? [];
      }),
    );
    const entries = leaves.flat().flatMap((leaf) => {
      const entry = record(record(leaf)?.['catalogEntry']);
      return entry === null || text(entry['version']) === null ? [] : [entry];
    });
    return { entries, count: Math.max(count, entries.length) };
  }

  async package(name: string): Promise<InspectedPackage | null> {
    const catalog = await this.catalog(name);
    if (catalog === null) return null;
    const { entries } = catalog;
    const key = name.toLowerCase();
    this.entries.set(key, entries);
    if (this.entries.size > 50) this.entries.delete(this.entries.keys().next().value ?? '');
    const versions = entries
      .map((e) => ({ version: String(e['version']), publishedAt: isoDate(e['published']), yanked: e['listed'] === false, deprecated: record(e['deprecation']) !== null }))
      .sort((a, b) => compareNugetVersions(a.version, b.version));
    const listed = versions.filter((v) => !v.yanked);
    const latest = listed.filter((v) => !v.version.includes('-')).at(-1) ?? listed.at(-1) ?? null;
    return { name: text(entries[0]?.['id']) ?? name, versions, latest: latest?.version ?? null, versionsCount: catalog.count };
  }

  async release(name: string, version: string): Promise<InspectedRelease | null> {
    const entries = this.entries.get(name.toLowerCase()) ?? (await this.catalog(name))?.entries ?? [];
    const entry = entries.find((e) => String(e['version']).toLowerCase() === version.toLowerCase());
    if (entry === undefined) return null;
    const facts = nugetMetadata(entry);
    const deprecation = record(entry['deprecation']);
    const reasons = Array.isArray(deprecation?.['reasons']) ? (deprecation['reasons'] as unknown[]).filter((r): r is string => typeof r === 'string') : [];
    return {
      version: String(entry['version']),
      publishedAt: isoDate(entry['published']),
      license: facts.license,
      description: facts.description,
      homepage: facts.homepage,
      repositoryUrl: null,
      supplier: facts.supplier?.party ?? null,
      deprecated: deprecation === null ? null : { as: 'deprecated', reason: text(deprecation['message']) ?? (reasons.length > 0 ? reasons.join(', ') : null) },
      yanked: withdrawn(entry['listed'] === false, 'unlisted', null),
      retracted: null,
      installScripts: null,
      dependencies: dependencyGroups(entry),
      exports: null,
    };
  }
}

export function inspector(context: SourceContext): PackageInspector {
  return new NugetInspector(baseOf(context.registries, 'nuget'), context.http);
}
