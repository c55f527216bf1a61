import { normalizeName, OSV_ECOSYSTEMS } from './ecosystems.js';
import { AdvisoryError } from './errors.js';
import { OsvValidator, type SkipReason } from './osv-validate.js';
import { readAdvisoryPaths } from './paths.js';
import type { AdvisorySourceStatus, AdvisoryStore, GenerationSource, StagedGeneration } from './store.js';
import type { OsvAdvisory } from './types.js';
import { ADVISORY_ARCHIVE_LIMITS, type AdvisoryArchiveLimits, type ArchiveEntry } from './zip.js';

/**
 * The import pipeline both writers share (the maintenance sync of one `<Ecosystem>/all.zip`, and
 * `pkgscope advisories import PATH…`): every entry is parsed and validated against the OSV schema
 * (bad ones skipped and counted), then written into a staged generation of each ecosystem it
 * names, keyed by the normalised package names; `commit` swaps them in.
 */

/** Why entries were skipped: counts by reason and the first few details (for one log line). */
export class SkipTally {
  readonly byReason: Partial<Record<SkipReason | 'other_ecosystem', number>> = {};
  readonly examples: string[] = [];
  total = 0;

  add(reason: SkipReason | 'other_ecosystem', detail: string): void {
    this.total++;
    this.byReason[reason] = (this.byReason[reason] ?? 0) + 1;
    if (this.examples.length < 5) this.examples.push(detail);
  }
}

/** The OSV ecosystem of an `affected[].package.ecosystem` (`Debian:11` → `Debian`). */
export function baseEcosystem(ecosystem: string): string {
  const colon = ecosystem.indexOf(':');
  return colon < 0 ? ecosystem : ecosystem.slice(0, colon);
}

/** The normalised package names an advisory affects, per OSV ecosystem among `wanted`. */
export function affectedNames(advisory: OsvAdvisory, wanted: ReadonlySet<string>): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  for (const affected of advisory.affected ?? []) {
    const pkg = affected.package;
    if (pkg === undefined) continue;
    const ecosystem = baseEcosystem(pkg.ecosystem);
    if (!wanted.has(ecosystem)) continue;
    let set = names.get(ecosystem);
    if (set === undefined) names.set(ecosystem, (set = new Set()));
    set.add(normalizeName(ecosystem, pkg.name));
  }
  return names;
}

export interface ImportOptions {
  /** OSV ecosystems taken (others named by a document are passed over). */
  readonly ecosystems: readonly string[];
  /** Stage every one of `ecosystems` up front, so one without documents is swapped in empty (a sync of its archive). */
  readonly stageAll?: boolean;
  readonly limits?: AdvisoryArchiveLimits;
}

/** One run of the pipeline: entries in, staged generations out. Call within `AdvisoryStore.exclusively`. */
export class AdvisoryImport {
  readonly skipped = new SkipTally();
  /** Valid documents read (each once, whatever number of ecosystems it names). */
  documents = 0;
  private readonly validator = new OsvValidator();
  private readonly wanted: ReadonlySet<string>;
  private readonly staged = new Map<string, StagedGeneration>();

  constructor(
    private readonly store: AdvisoryStore,
    private readonly options: ImportOptions,
  ) {
    this.wanted = new Set(options.ecosystems);
  }

  async begin(): Promise<void> {
    if (this.options.stageAll === true) for (const ecosystem of this.options.ecosystems) await this.generation(ecosystem);
  }

  private async generation(ecosystem: string): Promise<StagedGeneration> {
    let staged = this.staged.get(ecosystem);
    if (staged === undefined) {
      staged = await this.store.stage(ecosystem);
      this.staged.set(ecosystem, staged);
    }
    return staged;
  }

  /** One entry of an archive or folder. */
  async entry(entry: ArchiveEntry): Promise<void> {
    if (!('bytes' in entry)) {
      this.skipped.add(entry.skipped, entry.detail);
      return;
    }
    const parsed = this.validator.parse(entry.bytes);
    if (!parsed.ok) {
      this.skipped.add(parsed.reason, `${entry.name}: ${parsed.detail}`);
      return;
    }
    const names = affectedNames(parsed.advisory, this.wanted);
    if (names.size === 0) {
      this.skipped.add('other_ecosystem', `${entry.name}: ${parsed.advisory.id} names no package of ${[...this.wanted].join(', ')}`);
      return;
    }
    this.documents++;
    for (const [ecosystem, set] of names) {
      const staged = await this.generation(ecosystem);
      await staged.add({ id: parsed.advisory.id, modified: parsed.advisory.modified, text: parsed.text, names: [...set] });
    }
  }

  /** The ecosystems written so far. */
  ecosystems(): string[] {
    return [...this.staged.keys()];
  }

  /** Swaps every staged generation in, one ecosystem (one transaction) at a time. */
  async commit(source: (ecosystem: string) => GenerationSource): Promise<AdvisorySourceStatus[]> {
    const committed: AdvisorySourceStatus[] = [];
    for (const [ecosystem, staged] of this.staged) committed.push(await staged.commit(source(ecosystem)));
    this.staged.clear();
    return committed;
  }

  /** Drops every staged generation; what was loaded stays loaded. */
  async discard(): Promise<void> {
    for (const staged of this.staged.values()) await staged.discard().catch(() => undefined);
    this.staged.clear();
  }
}

export interface PathsImportResult {
  readonly sources: readonly AdvisorySourceStatus[];
  readonly documents: number;
  readonly skipped: SkipTally;
}

/**
 * `pkgscope advisories import PATH…`: every document of the zips and folders, into the ecosystems
 * they name (each imported ecosystem's set is replaced by what was read; others are untouched).
 * All or nothing: a path that cannot be read or a broken archive changes nothing.
 */
export async function importAdvisoryPaths(
  store: AdvisoryStore,
  paths: readonly string[],
  options: { readonly ecosystems?: readonly string[]; readonly limits?: AdvisoryArchiveLimits; readonly onWaiting?: () => void } = {},
): Promise<PathsImportResult> {
  const run = async (): Promise<PathsImportResult> => {
    const job = new AdvisoryImport(store, { ecosystems: options.ecosystems ?? OSV_ECOSYSTEMS });
    try {
      await readAdvisoryPaths(paths, options.limits ?? ADVISORY_ARCHIVE_LIMITS, (entry) => job.entry(entry));
      const origin = `import: ${paths.join(', ')}`;
      const sources = await job.commit(() => ({ origin }));
      return { sources, documents: job.documents, skipped: job.skipped };
    } catch (error) {
      await job.discard();
      throw error;
    }
  };
  const held = await store.exclusively(false, run);
  if (held !== null) return held.value;
  // A sync is writing: wait for it rather than fail.
  options.onWaiting?.();
  const waited = await store.exclusively(true, run);
  if (waited === null) throw new AdvisoryError('interrupted', 'could not take the advisory writers’ lock');
  return waited.value;
}
