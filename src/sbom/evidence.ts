import type { EnrichmentResult } from '../model/enrich-types.js';
import type { Inventory } from '../model/model.js';
import { unreachableReasonWords } from '../model/registry-unreachable.js';

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

const duration = (ms: number): string => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

/** What the enrichment says of its failures beyond their keys (see EnrichmentResult). */
export type EnrichmentFailures = Pick<EnrichmentResult, 'unreachable' | 'outOfBudget' | 'failedOtherwise' | 'notConsulted'>;

export function evidenceOf(inventory: Inventory, failedCoordinates: readonly string[], enrichment: EnrichmentFailures = {}): Evidence {
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
  // A registry that could not be reached is named once, with how many components it left as recorded.
  for (const u of enrichment.unreachable ?? []) {
    sentences.push(
      `${u.registry} registry at ${u.origin} could not be reached (${unreachableReasonWords(u.reason)}): ${u.coordinates} component(s) carry only what the lockfile records.`,
    );
  }
  // Said outright, so that a document made offline never passes for an enriched one.
  if (enrichment.notConsulted !== undefined && enrichment.notConsulted > 0) {
    sentences.push(`No registry was consulted (offline): ${enrichment.notConsulted} component(s) carry only what the lockfile records.`);
  }
  if (enrichment.outOfBudget !== undefined) {
    sentences.push(
      `Registry enrichment stopped at its budget of ${duration(enrichment.outOfBudget.budgetMs)}: ${enrichment.outOfBudget.coordinates} component(s) carry only what the lockfile records.`,
    );
  }
  const otherwise = enrichment.failedOtherwise ?? failedCoordinates;
  if (otherwise.length > 0) {
    const shown = otherwise.slice(0, 20).join(', ');
    const more = otherwise.length > 20 ? ` and ${otherwise.length - 20} more` : '';
    sentences.push(`Registry metadata could not be fetched for ${shown}${more}; they carry only what the lockfile records.`);
  }
  for (const notice of inventory.notices.slice(0, 20)) sentences.push(notice.endsWith('.') ? notice : `${notice}.`);
  if (inventory.notices.length > 20) sentences.push(`${inventory.notices.length - 20} more inconsistencies were found.`);
  sentences.push('Licenses are as declared by each package; an absent license is unknown, not absent.');
  return { completeness, basis, graphComplete, notice: sentences.join(' ') };
}

/**
 * The notice of one document: the analysis's, and how many registry metadata values that document
 * left out because they do not fit its format (by field, most first), e.g. "3 registry metadata
 * value(s) that do not fit the document format were left out: 2 author email, 1 homepage."
 */
export function noticeWith(evidence: Evidence, leftOut: readonly (readonly [field: string, count: number])[]): string {
  const total = leftOut.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return evidence.notice;
  const fields = [...leftOut].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([field, count]) => `${count} ${field}`);
  return `${evidence.notice} ${total} registry metadata value(s) that do not fit the document format were left out: ${fields.join(', ')}.`;
}
