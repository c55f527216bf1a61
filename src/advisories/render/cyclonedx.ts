import type { VulnerabilityReport } from '../types.js';
import { aliasSource, vulnerabilityFacts, type ComponentName, type Rating, type VulnerabilityFacts } from './facts.js';

/**
 * CycloneDX 1.7 `vulnerabilities[]`: one entry per matched advisory (its OSV id), affecting the
 * bom-refs of the components it was matched to.
 */

export interface CdxRating {
  score?: number;
  severity: string;
  method: string;
  vector?: string;
  justification?: string;
}

export interface CdxVulnerability {
  'bom-ref': string;
  id: string;
  source: { name: string; url: string };
  references?: { id: string; source: { name: string; url: string } }[];
  ratings?: CdxRating[];
  cwes?: number[];
  description?: string;
  detail?: string;
  recommendation?: string;
  advisories?: { url: string }[];
  published?: string;
  updated?: string;
  affects: { ref: string; versions?: { version: string; status: 'affected' }[] }[];
}

function rating(r: Rating): CdxRating {
  return {
    ...(r.score === null ? {} : { score: r.score }),
    severity: r.severity,
    method: r.method,
    ...(r.vector === null ? {} : { vector: r.vector }),
    ...(r.justification === null ? {} : { justification: r.justification }),
  };
}

/** A bom-ref for an advisory, unique among the document's refs (`%` written `%25`, as components' are). */
function bomRefFor(id: string, used: Set<string>): string {
  const base = `vulnerability:${id.replace(/%/g, '%25')}`;
  let ref = base;
  for (let n = 2; used.has(ref); n++) ref = `${base}-${n}`;
  used.add(ref);
  return ref;
}

function entry(f: VulnerabilityFacts, bomRef: string, componentRef: (ref: string) => string): CdxVulnerability {
  return {
    'bom-ref': bomRef,
    id: f.id,
    source: { name: 'OSV', url: f.url },
    ...(f.aliases.length === 0 ? {} : { references: f.aliases.map((id) => ({ id, source: aliasSource(id) })) }),
    ...(f.ratings.length === 0 ? {} : { ratings: f.ratings.map(rating) }),
    ...(f.cwes.length === 0 ? {} : { cwes: [...f.cwes] }),
    ...(f.summary === null ? {} : { description: f.summary }),
    ...(f.details === null ? {} : { detail: f.details }),
    ...(f.recommendation === null ? {} : { recommendation: f.recommendation }),
    ...(f.references.length === 0 ? {} : { advisories: f.references.map((url) => ({ url })) }),
    ...(f.published === null ? {} : { published: f.published }),
    ...(f.modified === null ? {} : { updated: f.modified }),
    affects: f.affects.map((a) => ({
      ref: componentRef(a.ref),
      ...(a.version === null ? {} : { versions: [{ version: a.version, status: 'affected' as const }] }),
    })),
  };
}

/**
 * The `vulnerabilities` member of a document whose components are `components` (by occurrence
 * ref), written under the bom-refs `componentRef` gives them; `usedRefs` are the document's
 * bom-refs, which the advisories' own must not repeat.
 */
export function cycloneDxVulnerabilities(
  report: VulnerabilityReport,
  components: ReadonlyMap<string, ComponentName>,
  componentRef: (ref: string) => string,
  usedRefs: Iterable<string>,
): CdxVulnerability[] {
  const used = new Set(usedRefs);
  return vulnerabilityFacts(report, components).map((f) => entry(f, bomRefFor(f.id, used), componentRef));
}
