import type { Inventory } from './model.js';

/** The spec's document evidence values, computed from what the analysis actually did. */
export type Completeness =
  | 'resolved_manifest_inventory'
  | 'partial_manifest_inventory'
  | 'recorded_lockfile_inventory'
  | 'mixed_dependency_inventory';

export type ResolutionBasis = 'manifest_resolution' | 'lockfile_records' | 'lockfile_records_and_manifest_resolution';

export interface Evidence {
  readonly completeness: Completeness;
  readonly basis: ResolutionBasis;
  /** Whether every component's dependency edges are known (the compositions aggregate). */
  readonly graphComplete: boolean;
  readonly notice: string;
}

export function evidenceOf(inventory: Inventory, failedCoordinates: readonly string[]): Evidence {
  const fromLockfiles = inventory.resolutions.some((r) => r.outcome === 'lockfile');
  const resolved = inventory.resolutions.some((r) => r.outcome === 'resolved');
  const unresolved = inventory.resolutions.filter(
    (r) => r.outcome !== 'lockfile' && r.outcome !== 'resolved',
  );
  // What the platform provides is declared, not missing.
  const missing = inventory.declarations.filter((d) => d.provided !== true);
  const basis: ResolutionBasis =
    fromLockfiles && resolved ? 'lockfile_records_and_manifest_resolution' : resolved ? 'manifest_resolution' : 'lockfile_records';
  const completeness: Completeness =
    unresolved.length > 0 || missing.length > 0
      ? 'partial_manifest_inventory'
      : fromLockfiles && resolved
        ? 'mixed_dependency_inventory'
        : resolved
          ? 'resolved_manifest_inventory'
          : 'recorded_lockfile_inventory';
  const graphComplete = unresolved.length === 0 && missing.length === 0 && inventory.notices.length === 0;

  const sentences: string[] = [];
  if (basis === 'lockfile_records') {
    // No lockfile and nothing resolved: the components are what the manifests state exactly (Maven's declared versions).
    sentences.push(
      fromLockfiles || inventory.lockfiles.length > 0
        ? 'Components are the entries recorded in the uploaded lockfiles.'
        : 'No lockfile records the dependencies and no manifest was resolved: components are only what the uploaded manifests state exactly.',
    );
  }
  if (basis === 'manifest_resolution') {
    sentences.push('Components were resolved from the manifests against the registry at analysis time; a later install may differ.');
  }
  if (basis === 'lockfile_records_and_manifest_resolution') {
    sentences.push('Components combine lockfile records with manifests resolved against the registry at analysis time.');
  }
  for (const r of unresolved) {
    sentences.push(`${r.manifest} was not resolved (${r.outcome})${r.detail === null ? '' : `: ${r.detail}`}.`);
  }
  if (missing.length > 0) {
    sentences.push(`${missing.length} declared requirement(s) are listed unresolved in service:declarations.`);
  }
  const provided = inventory.declarations.length - missing.length;
  if (provided > 0) sentences.push(`${provided} requirement(s) on the platform or SDK (not packages) are listed in service:declarations.`);
  if (failedCoordinates.length > 0) {
    const shown = failedCoordinates.slice(0, 20).join(', ');
    const more = failedCoordinates.length > 20 ? ` and ${failedCoordinates.length - 20} more` : '';
    sentences.push(`Registry metadata could not be fetched for ${shown}${more}; they carry only what the lockfile records.`);
  }
  for (const notice of inventory.notices.slice(0, 20)) sentences.push(notice.endsWith('.') ? notice : `${notice}.`);
  if (inventory.notices.length > 20) sentences.push(`${inventory.notices.length - 20} more inconsistencies were found.`);
  sentences.push('Licenses are as declared by each package; an absent license is unknown, not absent.');
  return { completeness, basis, graphComplete, notice: sentences.join(' ') };
}
