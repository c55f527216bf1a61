import { OSV_ECOSYSTEM_BY_PURL_TYPE } from '../advisories/ecosystems.js';
import { matchVulnerabilities } from '../advisories/match/index.js';
import { vulnerabilityFacts } from '../advisories/render/facts.js';
import type { AdvisoryLookup } from '../advisories/types.js';
import type { PackageResponseType, PackageVulnerabilityType } from './schemas.js';

/**
 * The advisories that affect one package version, matched by the analysis' own matcher (OSV's
 * rules, the ecosystem's version order) against the advisory mirror. Without advisories (the
 * service has them off, or none are loaded for the ecosystem) the list is empty and a note says
 * why, so an empty list is never mistaken for "no known vulnerability".
 */

export interface VulnerabilityView {
  readonly list: PackageVulnerabilityType[];
  readonly note: string | null;
  readonly source: PackageResponseType['advisories'];
}

const REF = 'package';

/** `off`: the service syncs no advisories (ADVISORY_DB_URL); imported ones still match. */
export async function packageVulnerabilities(lookup: AdvisoryLookup | null, off: boolean, purlType: string, name: string, version: string): Promise<VulnerabilityView> {
  const ecosystem = OSV_ECOSYSTEM_BY_PURL_TYPE[purlType];
  if (ecosystem === undefined) return { list: [], note: 'OSV publishes no advisories for this ecosystem.', source: null };
  if (lookup === null) return { list: [], note: 'Advisories are off on this service (ADVISORY_DB_URL), so no vulnerability was matched.', source: null };
  const report = await matchVulnerabilities([{ ref: REF, ecosystem: purlType, name, version, source: 'registry', resolved: null, facts: {} }], lookup);
  // The report names every ecosystem it looked in, with none loaded (count 0) too.
  const found = report.snapshots.find((s) => s.ecosystem === ecosystem);
  const snapshot = found !== undefined && (found.advisories > 0 || found.syncedAt !== null) ? found : null;
  const source = snapshot === null ? null : { ecosystem, advisories: snapshot.advisories, modified_max: snapshot.modifiedMax, synced_at: snapshot.syncedAt };
  const facts = vulnerabilityFacts(report, new Map([[REF, { name, version }]]));
  const list = facts.map((f) => ({
    id: f.id,
    aliases: [...f.aliases],
    summary: f.summary,
    severity: f.severity,
    score: f.score,
    fixed_versions: [...new Set(f.affects.flatMap((a) => a.fixedVersions))],
    url: f.url,
  }));
  const note =
    snapshot !== null && snapshot.advisories > 0
      ? null
      : off
        ? `Advisories are off on this service (ADVISORY_DB_URL) and none were imported for ${ecosystem}, so no vulnerability was matched.`
        : `No ${ecosystem} advisories are loaded on this service yet, so no vulnerability was matched.`;
  return { list, note, source };
}
