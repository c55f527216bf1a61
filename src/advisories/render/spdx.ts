import type { VulnerabilityReport } from '../types.js';
import { vulnerabilityFacts, type ComponentName } from './facts.js';

/** SPDX 2.3's external reference to a security advisory (clause 7.21, category SECURITY). */
export interface SpdxAdvisoryRef {
  readonly referenceCategory: 'SECURITY';
  readonly referenceType: 'advisory';
  readonly referenceLocator: string;
}

/**
 * The advisory references of each affected package, by occurrence ref: one per matched advisory
 * (its page at osv.dev), worst severity first.
 */
export function spdxAdvisoryRefs(report: VulnerabilityReport, components: ReadonlyMap<string, ComponentName>): Map<string, SpdxAdvisoryRef[]> {
  const byRef = new Map<string, SpdxAdvisoryRef[]>();
  for (const f of vulnerabilityFacts(report, components)) {
    for (const a of f.affects) {
      const refs = byRef.get(a.ref) ?? [];
      refs.push({ referenceCategory: 'SECURITY', referenceType: 'advisory', referenceLocator: f.url });
      byRef.set(a.ref, refs);
    }
  }
  return byRef;
}

/** `pkg` with `refs` added to its external references. */
export function withAdvisoryRefs(pkg: Record<string, unknown>, refs: readonly SpdxAdvisoryRef[] | undefined): Record<string, unknown> {
  if (refs === undefined || refs.length === 0) return pkg;
  const existing = Array.isArray(pkg['externalRefs']) ? (pkg['externalRefs'] as unknown[]) : [];
  return { ...pkg, externalRefs: [...existing, ...refs] };
}
