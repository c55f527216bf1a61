/**
 * An in-memory AdvisoryLookup read from OSV bulk zips (`<Ecosystem>/all.zip` or any zip of OSV
 * JSON) and folders of OSV JSON files: the CLI's `--advisories PATH`, no service needed.
 */
import { stat } from 'node:fs/promises';
import { normalizeName, OSV_ECOSYSTEMS } from './ecosystems.js';
import { affectedNames, SkipTally } from './import.js';
import { OsvValidator } from './osv-validate.js';
import { readAdvisoryPaths } from './paths.js';
import type { AdvisoryLookup, AdvisorySnapshot, OsvAdvisory } from './types.js';
import { ADVISORY_ARCHIVE_LIMITS, type AdvisoryArchiveLimits } from './zip.js';

export interface FileLookupOptions {
  /** Only these OSV ecosystems are kept (default: every ecosystem pkgscope matches). */
  readonly ecosystems?: readonly string[];
  readonly limits?: AdvisoryArchiveLimits;
}

/** What was read besides the lookup itself: counts the CLI may print. */
export interface FileAdvisoryLookup extends AdvisoryLookup {
  /** Entries skipped because they were not OSV documents (bad JSON, schema violations, too large). */
  readonly skipped: number;
  /** The skipped entries by reason, and the first few of them. */
  readonly skippedDetail: SkipTally;
}

interface Held {
  readonly modified: string;
  /** Compact JSON, parsed when first asked for (a parsed document takes several times its text). */
  readonly text: string;
  parsed?: OsvAdvisory;
}

interface EcosystemSet {
  readonly byName: Map<string, Set<string>>;
  readonly ids: Set<string>;
  modifiedMax: string | null;
}

/**
 * Reads every zip and folder in `paths` (zips are read with the project's archive limits; every
 * entry is validated against the OSV schema, bad ones are skipped and counted) into memory.
 * Throws an AdvisoryError (`unreadable_path`, `corrupt_archive`, `archive_limit`) when a path
 * cannot be read at all.
 */
export async function openFileLookup(paths: readonly string[], options: FileLookupOptions = {}): Promise<FileAdvisoryLookup> {
  const wanted = new Set(options.ecosystems ?? OSV_ECOSYSTEMS);
  const validator = new OsvValidator();
  const skipped = new SkipTally();
  const documents = new Map<string, Held>();
  const sets = new Map<string, EcosystemSet>();
  await readAdvisoryPaths(paths, options.limits ?? ADVISORY_ARCHIVE_LIMITS, async (entry) => {
    if (!('bytes' in entry)) {
      skipped.add(entry.skipped, entry.detail);
      return;
    }
    const result = validator.parse(entry.bytes);
    if (!result.ok) {
      skipped.add(result.reason, `${entry.name}: ${result.detail}`);
      return;
    }
    const { advisory } = result;
    const names = affectedNames(advisory, wanted);
    if (names.size === 0) {
      skipped.add('other_ecosystem', `${entry.name}: ${advisory.id} names no package of a wanted ecosystem`);
      return;
    }
    const seen = documents.get(advisory.id);
    // Two copies of one advisory (two paths): the newest wins.
    if (seen === undefined || Date.parse(advisory.modified) > Date.parse(seen.modified)) documents.set(advisory.id, { modified: advisory.modified, text: result.text });
    for (const [ecosystem, keys] of names) {
      let set = sets.get(ecosystem);
      if (set === undefined) sets.set(ecosystem, (set = { byName: new Map(), ids: new Set(), modifiedMax: null }));
      set.ids.add(advisory.id);
      if (set.modifiedMax === null || Date.parse(advisory.modified) > Date.parse(set.modifiedMax)) set.modifiedMax = advisory.modified;
      for (const key of keys) {
        let ids = set.byName.get(key);
        if (ids === undefined) set.byName.set(key, (ids = new Set()));
        ids.add(advisory.id);
      }
    }
  });
  // When the files were written stands for when the set was synced.
  let newest = 0;
  for (const path of paths) newest = Math.max(newest, (await stat(path)).mtimeMs);
  const syncedAt = newest === 0 ? null : new Date(newest).toISOString();
  const snapshots: AdvisorySnapshot[] = [...sets.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([ecosystem, set]) => ({ ecosystem, advisories: set.ids.size, modifiedMax: set.modifiedMax === null ? null : new Date(set.modifiedMax).toISOString(), syncedAt }));
  const parse = (id: string): OsvAdvisory | null => {
    const held = documents.get(id);
    if (held === undefined) return null;
    held.parsed ??= JSON.parse(held.text) as OsvAdvisory;
    return held.parsed;
  };
  return {
    skipped: skipped.total,
    skippedDetail: skipped,
    async byPackages(ecosystem, names) {
      const set = sets.get(ecosystem);
      if (set === undefined) return [];
      const ids = new Set<string>();
      for (const name of names) for (const id of set.byName.get(normalizeName(ecosystem, name)) ?? []) ids.add(id);
      return [...ids]
        .sort()
        .map(parse)
        .filter((a): a is OsvAdvisory => a !== null);
    },
    async snapshots() {
      return snapshots;
    },
  };
}
