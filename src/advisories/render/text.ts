import { oneLine } from '../../sbom/render/fit.js';
import { table, wrap } from '../../sbom/render/text-layout.js';
import type { VulnerabilityReport } from '../types.js';
import { fitTime, severityCounts, vulnerabilityFacts, type ComponentName, type VulnerabilityFacts } from './facts.js';
import { SEVERITIES } from '../cvss.js';

/** Widest SEVERITY, ID, SCORE, COMPONENT and FIXED IN columns; SUMMARY takes the rest of the line. */
const COLUMN_CAPS = [8, 20, 5, 28, 16];

function fixedIn(f: VulnerabilityFacts): string {
  const versions = [...new Set(f.affects.flatMap((a) => a.fixedVersions))];
  return versions.length === 0 ? 'no fix' : versions.join(', ');
}

/** Longest headline taken from an advisory's details when it has no summary (PyPA's have none). */
const HEADLINE = 100;

/** The details' first line, cut after a word within HEADLINE characters. */
function headline(details: string | null): string {
  const line = details?.split('\n')[0]?.trim() ?? '';
  if (line.length <= HEADLINE) return line;
  const cut = line.lastIndexOf(' ', HEADLINE);
  return `${line.slice(0, cut > HEADLINE / 2 ? cut : HEADLINE)}…`;
}

function summary(f: VulnerabilityFacts): string {
  const text = f.summary ?? headline(f.details);
  return f.aliases.length === 0 ? text : `${text}${text === '' ? '' : ' '}(${f.aliases.join(', ')})`;
}

/**
 * The vulnerabilities section of the text format: counts by severity, one row per advisory
 * (worst severity first, then score, then id) with the components it affects and the versions
 * that fix it, then the advisory snapshot the inventory was matched against.
 */
export function vulnerabilityLines(report: VulnerabilityReport, components: ReadonlyMap<string, ComponentName>): string[] {
  const facts = vulnerabilityFacts(report, components);
  const counts = severityCounts(facts);
  const lines: string[] = [];
  const present = SEVERITIES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`);
  lines.push(facts.length === 0 ? 'Vulnerabilities: none found' : `Vulnerabilities: ${facts.length} (${present.join(', ')})`);
  if (facts.length > 0) {
    const rows = facts.map((f) => [
      f.severity,
      f.id,
      f.score === null ? '-' : f.score.toFixed(1),
      f.affects.map((a) => `${a.name}${a.version === null ? '' : ` ${a.version}`}`).join(', '),
      fixedIn(f),
      summary(f),
    ]);
    lines.push(...table(['SEVERITY', 'ID', 'SCORE', 'COMPONENT', 'FIXED IN', 'SUMMARY'], rows, COLUMN_CAPS));
  }
  const snapshots = [...report.snapshots].sort((a, b) => (a.ecosystem < b.ecosystem ? -1 : a.ecosystem > b.ecosystem ? 1 : 0)).map((s) => {
    const synced = s.syncedAt === null ? 'never' : (fitTime(s.syncedAt) ?? 'unknown');
    const name = oneLine(s.ecosystem) ?? '?';
    if (s.advisories === 0) return `${name} 0 (empty, synced ${synced})`;
    return `${name} ${s.advisories.toLocaleString('en')} (newest ${s.modifiedMax === null ? 'none' : (fitTime(s.modifiedMax) ?? 'unknown')}, synced ${synced})`;
  });
  lines.push(...wrap(`Advisories matched against: ${snapshots.length === 0 ? 'none loaded' : snapshots.join('; ')}`, undefined, '  '));
  return lines;
}
