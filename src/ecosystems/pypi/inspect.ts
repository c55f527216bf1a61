import { baseOf, type SourceContext } from '../registration.js';
import { registryJson, type SourceHttp } from '../shared/archive.js';
import { type DeclaredDependency, type InspectedPackage, type InspectedRelease, isoDate, type PackageInspector, registryFacts, withdrawn } from '../shared/inspect.js';
import { record, text } from '../shared/narrow.js';
import { parseRequirement } from './names.js';
import { projectDocumentUrl, pypiMetadata, releaseUrl } from './registry.js';

/**
 * PyPI inspection through the JSON API: the project document (`/pypi/<name>/json`: `releases`,
 * each a list of files with `upload_time_iso_8601`, `yanked`) and the release document
 * (`/pypi/<name>/<version>/json`: `info.requires_dist`, `yanked_reason`, the license fields).
 */

/** A release's date: its earliest uploaded file. */
function uploaded(files: unknown): string | null {
  if (!Array.isArray(files)) return null;
  const times = files.flatMap((f) => {
    const at = isoDate(record(f)?.['upload_time_iso_8601'] ?? record(f)?.['upload_time']);
    return at === null ? [] : [at];
  });
  return times.sort()[0] ?? null;
}

/** A release is yanked when every one of its files is (PEP 592). */
function allYanked(files: unknown): boolean {
  return Array.isArray(files) && files.length > 0 && files.every((f) => record(f)?.['yanked'] === true);
}

/** `requires_dist` entries: an extra's requirement is optional and of kind `extra:<name>`. */
export function requiresDist(value: unknown): DeclaredDependency[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry) => {
    const parsed = typeof entry === 'string' ? parseRequirement(entry) : null;
    if (parsed === null) return [];
    const extra = /\bextra\s*==\s*["']([^"']+)["']/.exec(parsed.marker ?? '')?.[1];
    const requirement = parsed.url ?? (parsed.specifier === '' ? null : parsed.specifier);
    return [{ name: parsed.name, requirement: parsed.marker === null ? requirement : `${requirement ?? ''}; ${parsed.marker}`.trim(), kind: extra === undefined ? 'requires_dist' : `extra:${extra}`, optional: extra !== undefined }];
  });
}

class PypiInspector implements PackageInspector {
  constructor(
    private readonly base: string,
    private readonly http: SourceHttp,
  ) {}

  async package(name: string): Promise<InspectedPackage | null> {
    const doc = await registryJson<{ info?: unknown; releases?: unknown }>(this.http, projectDocumentUrl(this.base, name), (d) => record(d.info) !== null);
    if (doc === null) return null;
    const info = record(doc.info) ?? {};
    const releases = record(doc.releases) ?? {};
    const versions = Object.entries(releases).map(([version, files]) => ({ version, publishedAt: uploaded(files), yanked: allYanked(files), deprecated: false }));
    if (versions.every((v) => v.publishedAt !== null)) versions.sort((a, b) => (a.publishedAt ?? '').localeCompare(b.publishedAt ?? ''));
    return { name: text(info['name']) ?? name, versions, latest: text(info['version']) };
  }

  async release(name: string, version: string, known: InspectedPackage): Promise<InspectedRelease | null> {
    const doc = await registryJson<{ info?: unknown; urls?: unknown }>(this.http, releaseUrl(this.base, name, version), (d) => record(d.info) !== null);
    if (doc === null) return null;
    const info = record(doc.info) ?? {};
    const facts = pypiMetadata(doc);
    const listed = known.versions.find((v) => v.version === version);
    return {
      version,
      publishedAt: uploaded(doc.urls) ?? listed?.publishedAt ?? null,
      ...registryFacts(facts),
      deprecated: null,
      yanked: withdrawn(info['yanked'] === true || listed?.yanked === true, 'yanked', text(info['yanked_reason'])),
      retracted: null,
      installScripts: null,
      dependencies: requiresDist(info['requires_dist']),
      exports: null,
    };
  }
}

export function inspector(context: SourceContext): PackageInspector {
  return new PypiInspector(baseOf(context.registries, 'pypi').replace(/\/+$/, ''), context.http);
}
