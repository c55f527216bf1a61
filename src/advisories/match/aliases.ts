/**
 * Advisories that are aliases of each other are one vulnerability: matched advisories whose ids
 * and aliases meet (A lists B, B lists A, or both list the same CVE) are folded into one group
 * and reported once, under its primary id. The primary is the database's own record rather than a
 * cross-reference: among the group's ids that are not CVE- or GHSA- ids (GO-, PYSEC-, RUSTSEC-…)
 * the lexicographically first; when all are CVE/GHSA ids, the lexicographically first of them.
 * The primary's document is the one rendered; the others' ids and aliases become its aliases.
 */
import type { AffectedOccurrence, VulnerabilityMatch } from '../types.js';

const CROSS_REFERENCE = /^(CVE|GHSA)-/;

export function primaryOf(ids: readonly string[]): string {
  const own = ids.filter((id) => !CROSS_REFERENCE.test(id));
  const pool = own.length > 0 ? own : ids;
  return [...pool].sort()[0] ?? '';
}

/** Merges two lists of affected occurrences: one per ref, fixed versions united. */
function mergeAffects(into: Map<string, AffectedOccurrence>, affects: readonly AffectedOccurrence[]): void {
  for (const a of affects) {
    const held = into.get(a.ref);
    if (held === undefined) {
      into.set(a.ref, a);
      continue;
    }
    const fixed = [...held.fixedVersions];
    for (const f of a.fixedVersions) if (!fixed.includes(f)) fixed.push(f);
    into.set(a.ref, { ...held, fixedVersions: fixed });
  }
}

/** Folds matches (one per advisory id) into one per vulnerability, sorted by id. */
export function foldAliases(matches: readonly VulnerabilityMatch[]): VulnerabilityMatch[] {
  const parent = matches.map((_, i) => i);
  const find = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] ?? r;
    parent[i] = r;
    return r;
  };
  const owner = new Map<string, number>();
  matches.forEach((m, i) => {
    for (const token of [m.advisory.id, ...m.aliases]) {
      const j = owner.get(token);
      if (j === undefined) owner.set(token, i);
      else parent[find(i)] = find(j);
    }
  });
  const groups = new Map<number, VulnerabilityMatch[]>();
  matches.forEach((m, i) => {
    const root = find(i);
    const group = groups.get(root);
    if (group === undefined) groups.set(root, [m]);
    else group.push(m);
  });
  const folded: VulnerabilityMatch[] = [];
  for (const group of groups.values()) {
    const primaryId = primaryOf(group.map((m) => m.advisory.id));
    const primary = group.find((m) => m.advisory.id === primaryId) ?? group[0];
    if (primary === undefined) continue;
    const aliases = new Set<string>();
    const affects = new Map<string, AffectedOccurrence>();
    for (const m of group) {
      if (m.advisory.id !== primaryId) aliases.add(m.advisory.id);
      for (const a of m.aliases) if (a !== primaryId) aliases.add(a);
      mergeAffects(affects, m.affects);
    }
    folded.push({ ...primary, aliases: [...aliases].sort(), affects: [...affects.values()].sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)) });
  }
  return folded.sort((a, b) => (a.advisory.id < b.advisory.id ? -1 : a.advisory.id > b.advisory.id ? 1 : 0));
}
