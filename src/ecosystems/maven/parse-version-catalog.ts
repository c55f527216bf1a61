import { smolToml } from '../../model/safe-parse.js';
import { JvmFileError } from './xml.js';
import { text as str } from '../shared/narrow.js';

/**
 * A Gradle version catalog, `gradle/libs.versions.toml`
 * (https://docs.gradle.org/current/userguide/version_catalogs.html): `[versions]`, `[libraries]`
 * (`"g:a:v"`, or `module = "g:a"` / `group` + `name`, with `version = "…"`, `version.ref`, or a
 * rich version `{ strictly, require, prefer, reject }`), `[bundles]` (lists of library aliases) and
 * `[plugins]` (`id`, version). A catalog declares; it does not say which project uses what.
 */

export interface CatalogLibrary {
  readonly alias: string;
  readonly group: string;
  readonly artifact: string;
  /** The version as declared (a rich version's `strictly`/`require`/`prefer`), '' when none. */
  readonly version: string;
}

export interface CatalogPlugin {
  readonly alias: string;
  readonly id: string;
  readonly version: string;
}

export interface VersionCatalog {
  readonly libraries: readonly CatalogLibrary[];
  readonly bundles: ReadonlyMap<string, readonly string[]>;
  readonly plugins: readonly CatalogPlugin[];
}

type Table = Record<string, unknown>;

function isTable(v: unknown): v is Table {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** The accessor name of an alias: `-`, `_` and `.` all separate (`groovy-core` is `libs.groovy.core`). */
export function accessorOf(alias: string): string {
  return alias.replace(/[-_]/g, '.').toLowerCase();
}

function versionOf(v: unknown, versions: Table): string {
  if (typeof v === 'string') return v;
  if (!isTable(v)) return '';
  const ref = str(v['ref']);
  if (ref !== null) return versionOf(versions[ref], {});
  return str(v['strictly']) ?? str(v['require']) ?? str(v['prefer']) ?? '';
}

function libraryOf(alias: string, v: unknown, versions: Table): CatalogLibrary {
  const bad = (): JvmFileError => new JvmFileError('malformed', `library ${alias} has no module coordinates`);
  if (typeof v === 'string') {
    const [group, artifact, version = ''] = v.split(':');
    if (!group || !artifact) throw bad();
    return { alias, group, artifact, version };
  }
  if (!isTable(v)) throw bad();
  const module = str(v['module']);
  const [group, artifact] = module === null ? [str(v['group']), str(v['name'])] : module.split(':');
  if (!group || !artifact) throw bad();
  return { alias, group, artifact, version: versionOf(v['version'], versions) };
}

export function parseVersionCatalog(text: string): VersionCatalog {
  let doc: Table;
  try {
    doc = smolToml().parse(text);
  } catch (error) {
    if (error instanceof smolToml().TomlError) throw new JvmFileError('malformed', `not valid TOML: ${error.message.split('\n')[0] ?? ''}`, error.line);
    throw error;
  }
  const section = (name: string): Table => {
    const v = doc[name];
    return isTable(v) ? v : {};
  };
  const versions = section('versions');
  const libraries = Object.entries(section('libraries')).map(([alias, v]) => libraryOf(alias, v, versions));
  const bundles = new Map<string, string[]>();
  for (const [alias, v] of Object.entries(section('bundles'))) {
    if (Array.isArray(v)) bundles.set(alias, v.filter((x): x is string => typeof x === 'string'));
  }
  const plugins: CatalogPlugin[] = [];
  for (const [alias, v] of Object.entries(section('plugins'))) {
    if (typeof v === 'string') {
      const [id = '', version = ''] = v.split(':');
      if (id !== '') plugins.push({ alias, id, version });
    } else if (isTable(v) && str(v['id']) !== null) {
      plugins.push({ alias, id: str(v['id']) ?? '', version: versionOf(v['version'], versions) });
    }
  }
  return { libraries, bundles, plugins };
}
