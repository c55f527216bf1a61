import type { VulnerabilityReport } from '../types.js';

/**
 * The `service:advisories` evidence: the advisory snapshot an inventory was matched against, per
 * OSV ecosystem its advisory count, newest `modified`, when it was synced and its state (`ready`,
 * or `empty` when none are loaded: synced empty, or never synced), as JSON text like the other
 * structured evidence values. Nothing when vulnerabilities were not asked for.
 */
export function advisoryEvidence(report: VulnerabilityReport | undefined): { name: string; value: string }[] {
  if (report === undefined) return [];
  const snapshots = [...report.snapshots]
    .sort((a, b) => (a.ecosystem < b.ecosystem ? -1 : a.ecosystem > b.ecosystem ? 1 : 0))
    .map((s) => ({ ecosystem: s.ecosystem, advisories: s.advisories, modified_max: s.modifiedMax, synced_at: s.syncedAt, state: s.advisories === 0 ? 'empty' : 'ready' }));
  return [{ name: 'service:advisories', value: JSON.stringify(snapshots) }];
}
