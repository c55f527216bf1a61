import { DomainError } from '../errors.js';
import type { DeclaredDependency, InspectedRelease } from '../ecosystems/shared/inspect.js';
import type { PackageTarget } from '../inventory/targets.js';
import { CHANGELOG_NOT_AVAILABLE, type ChangelogFindings, type ChangelogReader, type PackageFiles } from './changelog-seam.js';
import type { PackageInspection, ResolvedRelease } from './inspection.js';
import type { PackageDependencyType, PackageVulnerabilityType, UpgradeReviewResponseType } from './schemas.js';

/**
 * `POST /v1/packages/upgrade-review`: what changes between the installed version and the one to
 * upgrade to, in one answer a reviewer can act on. Registry facts (dependencies, license, install
 * scripts, exports) come from the inspection; file changes and sizes from the two versions'
 * prepared inventories (the compare machinery, through `VersionFiles`); changelog entries from
 * the changelog seam.
 */

export interface FileTotals {
  readonly count: number;
  readonly bytes: number;
}

/** What changed between two versions' files, by path and content hash, with byte totals. */
export interface FilesDelta {
  readonly added: FileTotals;
  readonly removed: FileTotals;
  readonly changed: { readonly count: number; readonly bytesBefore: number; readonly bytesAfter: number };
  readonly unchanged: number;
  readonly before: FileTotals;
  readonly after: FileTotals;
  /** The served targets a compare of every change names. */
  readonly base: string;
  readonly head: string;
}

/**
 * The files of prepared versions (the inventories listing and compare serve). Both throw the
 * inventories' domain errors when a version is not prepared yet or its archive is unavailable.
 */
export interface VersionFiles {
  delta(base: PackageTarget, head: PackageTarget, waitMs: number): Promise<FilesDelta>;
  files(target: PackageTarget, waitMs: number): Promise<PackageFiles>;
}

/** Inventory states that leave the files unknown rather than failing the review. */
const FILES_PENDING = new Set(['TARGET_NOT_READY', 'SOURCE_INVENTORY_SCOPE_UNAVAILABLE', 'LIST_TARGET_NOT_FOUND']);

/** The release a caller reads: major component, or `0.minor` below 1.0 (where a minor bump may break). */
export function majorOf(version: string): string | null {
  const m = /^v?(\d+)(?:\.(\d+))?/.exec(version);
  if (m === null) return null;
  return m[1] === '0' ? `0.${m[2] ?? '0'}` : (m[1] ?? null);
}

function dependencyKey(d: DeclaredDependency): string {
  return `${d.kind}\u0000${d.name}`;
}

function wire(d: DeclaredDependency): PackageDependencyType {
  return { name: d.name, requirement: d.requirement, kind: d.kind, optional: d.optional };
}

export function dependencyChanges(before: readonly DeclaredDependency[], after: readonly DeclaredDependency[]): UpgradeReviewResponseType['dependencies'] {
  const old = new Map(before.map((d) => [dependencyKey(d), d]));
  const now = new Map(after.map((d) => [dependencyKey(d), d]));
  return {
    added: after.filter((d) => !old.has(dependencyKey(d))).map(wire),
    removed: before.filter((d) => !now.has(dependencyKey(d))).map(wire),
    changed: after.flatMap((d) => {
      const was = old.get(dependencyKey(d));
      return was === undefined || was.requirement === d.requirement ? [] : [{ name: d.name, kind: d.kind, from: was.requirement, to: d.requirement }];
    }),
  };
}

export function scriptChanges(before: InspectedRelease['installScripts'], after: InspectedRelease['installScripts']): UpgradeReviewResponseType['install_scripts'] {
  if (before === null && after === null) return null;
  const a = before ?? {};
  const b = after ?? {};
  const changed: Record<string, { from: string; to: string }> = {};
  for (const [name, script] of Object.entries(b)) {
    const was = a[name];
    if (was !== undefined && was !== script) changed[name] = { from: was, to: script };
  }
  return {
    added: Object.fromEntries(Object.entries(b).filter(([name]) => a[name] === undefined)),
    removed: Object.fromEntries(Object.entries(a).filter(([name]) => b[name] === undefined)),
    changed,
  };
}

export function vulnerabilityChanges(before: readonly PackageVulnerabilityType[], after: readonly PackageVulnerabilityType[]): Omit<UpgradeReviewResponseType['vulnerabilities'], 'note'> {
  const now = new Set(after.map((v) => v.id));
  const old = new Set(before.map((v) => v.id));
  return { fixed: before.filter((v) => !now.has(v.id)), introduced: after.filter((v) => !old.has(v.id)), remaining: after.filter((v) => old.has(v.id)) };
}

export function breakingHints(from: ResolvedRelease, to: ResolvedRelease, changelog: ChangelogFindings): UpgradeReviewResponseType['breaking'] {
  const hints: UpgradeReviewResponseType['breaking'] = [];
  const [a, b] = [majorOf(from.version), majorOf(to.version)];
  if (a !== null && b !== null && a !== b && (to.compare(to.version, from.version) ?? 0) > 0) hints.push({ kind: 'major_bump', detail: `${from.version} to ${to.version} changes the major version (${a} to ${b}).` });
  for (const entry of changelog.entries) if (entry.breaking) hints.push({ kind: 'changelog', detail: `The changelog entry of ${entry.version} says BREAKING.` });
  const before = from.release.value.exports;
  const after = to.release.value.exports;
  // Only when both declare exports: a version that drops the field altogether opens every path.
  if (before !== null && after !== null) for (const key of before.filter((k) => !after.includes(k))) hints.push({ kind: 'removed_export', detail: `The export ${key} is no longer declared.` });
  return hints;
}

/** A version's files, fetched only when a reader asks for them (no reader: nothing is prepared or awaited). */
function lazyFiles(files: VersionFiles, target: PackageTarget, waitMs: number): PackageFiles {
  let made: Promise<PackageFiles> | undefined;
  const get = (): Promise<PackageFiles> => (made ??= files.files(target, waitMs));
  return {
    target: target.text,
    paths: async () => (await get()).paths(),
    text: async (path) => (await get()).text(path),
  };
}

export class UpgradeReview {
  constructor(
    private readonly inspection: PackageInspection,
    private readonly files: VersionFiles,
    private readonly changelog: ChangelogReader,
  ) {}

  /** The entries between two versions, or "not available" when no reader can tell. */
  async changelogBetween(target: PackageTarget, from: string | null, to: ResolvedRelease, waitMs: number): Promise<ChangelogFindings> {
    const files = lazyFiles(this.files, { ...target, spec: to.version, text: `${target.registry}:${target.name}@${to.version}` }, waitMs);
    const versions = this.inspection.newest(to).map((v) => v.version);
    try {
      return (await this.changelog.entriesBetween(files, from, to.version, to.compare, versions)) ?? CHANGELOG_NOT_AVAILABLE;
    } catch (error) {
      // The newer version's files are not prepared yet (or cannot be): the changelog waits for them.
      if (error instanceof DomainError && FILES_PENDING.has(error.code)) return { ...CHANGELOG_NOT_AVAILABLE, coverage: { ...CHANGELOG_NOT_AVAILABLE.coverage, reason: error.detail } };
      throw error;
    }
  }

  async review(target: PackageTarget, to: string, waitMs: number): Promise<UpgradeReviewResponseType> {
    if (target.spec === null) throw new DomainError('VALIDATION_ERROR', 'target must name the installed version (`npm:express@4.17.1`).');
    const toTarget: PackageTarget = { ...target, spec: to, text: `${target.registry}:${target.name}@${to}` };
    const [before, after] = await Promise.all([this.inspection.resolve(target), this.inspection.resolve(toTarget)]);
    const [oldVulns, newVulns] = await Promise.all([this.inspection.vulnerabilities(before), this.inspection.vulnerabilities(after)]);
    let files: UpgradeReviewResponseType['files'] = null;
    let size: UpgradeReviewResponseType['size'] = null;
    let filesNote: string | null = null;
    const pinned = (r: ResolvedRelease): PackageTarget => ({ ...target, spec: r.version, text: r.canonical });
    const [delta, changelog] = await Promise.all([
      this.files.delta(pinned(before), pinned(after), waitMs).catch((error: unknown) => {
        if (error instanceof DomainError && FILES_PENDING.has(error.code)) {
          filesNote = error.detail;
          return null;
        }
        throw error;
      }),
      this.changelogBetween(target, before.version, after, waitMs),
    ]);
    if (delta !== null) {
      files = {
        added: delta.added,
        removed: delta.removed,
        changed: { count: delta.changed.count, bytes_before: delta.changed.bytesBefore, bytes_after: delta.changed.bytesAfter },
        unchanged: delta.unchanged,
        compare: { base: delta.base, head: delta.head },
      };
      size = { before: delta.before, after: delta.after };
    }
    const side = (r: ResolvedRelease) => ({ canonical_target: r.canonical, version: r.version, published_at: r.release.value.publishedAt, license: r.release.value.license });
    return {
      requested_target: target.text,
      from: side(before),
      to: side(after),
      breaking: breakingHints(before, after, changelog),
      vulnerabilities: { ...vulnerabilityChanges(oldVulns.list, newVulns.list), note: newVulns.note ?? oldVulns.note },
      dependencies: dependencyChanges(before.release.value.dependencies, after.release.value.dependencies),
      license: { from: before.release.value.license, to: after.release.value.license, changed: before.release.value.license !== after.release.value.license },
      install_scripts: scriptChanges(before.release.value.installScripts, after.release.value.installScripts),
      files,
      files_note: filesNote,
      size,
      changelog: { entries: [...changelog.entries], coverage: changelog.coverage },
    };
  }
}
