import { isLink, WEB } from '../../sbom/render/formats.js';
import { fitVersion, multiLine, oneLine } from '../../sbom/render/fit.js';
import { scoreCvss, SEVERITIES, type CvssMethod, type Severity } from '../cvss.js';
import type { OsvAdvisory, OsvSeverity, VulnerabilityMatch, VulnerabilityReport } from '../types.js';

/**
 * The matched advisories as the documents state them, every OSV value fitted the way registry
 * metadata is (sbom/render/fit.ts): free texts without the characters that break documents, links
 * that are IRIs, dates that are RFC 3339, numbers that are numbers. Any OSV content renders.
 */

export interface Rating {
  /** Absent for an ecosystem's severity label, which has no score. */
  readonly method: CvssMethod | 'other';
  readonly vector: string | null;
  readonly score: number | null;
  readonly severity: Severity;
  /** For a label: where it comes from and the label as written. */
  readonly justification: string | null;
}

export interface AffectedComponent {
  /** The occurrence's ref. */
  readonly ref: string;
  readonly name: string;
  readonly version: string | null;
  readonly fixedVersions: readonly string[];
}

export interface VulnerabilityFacts {
  readonly id: string;
  /** The advisory's page at osv.dev. */
  readonly url: string;
  readonly ecosystem: string;
  readonly aliases: readonly string[];
  readonly ratings: readonly Rating[];
  /** The worst severity among the ratings; `unknown` without any. */
  readonly severity: Severity;
  /** The highest score among the ratings, null without any. */
  readonly score: number | null;
  readonly cwes: readonly number[];
  readonly summary: string | null;
  readonly details: string | null;
  readonly references: readonly string[];
  readonly published: string | null;
  readonly modified: string | null;
  readonly affects: readonly AffectedComponent[];
  /** The nearest fixed versions, in words; null when no fix is published for any affected component. */
  readonly recommendation: string | null;
}

/** A component of the document, by the occurrence ref an affected entry names. */
export interface ComponentName {
  readonly name: string;
  readonly version: string | null;
}

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/** osv.dev's page of an advisory. */
export function osvUrl(id: string): string {
  return `https://osv.dev/vulnerability/${encodeURIComponent(id)}`;
}

/** Where an alias is published: NVD for CVEs, GitHub's database for GHSAs, osv.dev for the rest. */
export function aliasSource(alias: string): { name: string; url: string } {
  if (/^CVE-\d+-\d+$/.test(alias)) return { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${alias}` };
  if (/^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$/.test(alias)) return { name: 'GitHub', url: `https://github.com/advisories/${alias}` };
  return { name: 'OSV', url: osvUrl(alias) };
}

/** GitHub's and others' labels (`MODERATE`, `High`…) on CycloneDX's scale; null for a label it has no word for. */
function labelSeverity(label: string): Severity | null {
  const word = label.trim().toLowerCase();
  if (word === 'moderate') return 'medium';
  if (word === 'informational') return 'info';
  return (SEVERITIES as readonly string[]).includes(word) ? (word as Severity) : null;
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The severity entries of the advisory and of its affected entries (OSV allows both). */
function severityEntries(advisory: OsvAdvisory): OsvSeverity[] {
  const entries = [...list(advisory.severity), ...list(advisory.affected).flatMap((a) => list(record(a)['severity']))];
  return entries.flatMap((s) => {
    const r = record(s);
    return typeof r['type'] === 'string' && typeof r['score'] === 'string' ? [{ type: r['type'], score: r['score'] }] : [];
  });
}

/**
 * Every CVSS vector once, with its computed score; then, only where there is no CVSS vector at
 * all, the databases' own labels (GitHub's `database_specific.severity`, an `Ubuntu` entry).
 */
export function ratingsOf(advisory: OsvAdvisory): Rating[] {
  const ratings: Rating[] = [];
  const vectors = new Set<string>();
  const labels: { label: string; from: string }[] = [];
  for (const entry of severityEntries(advisory)) {
    const text = oneLine(entry.score);
    if (text === null) continue;
    const scored = entry.type.startsWith('CVSS_') ? scoreCvss(text) : null;
    if (scored !== null) {
      if (vectors.has(scored.vector)) continue;
      vectors.add(scored.vector);
      ratings.push({ method: scored.method, vector: scored.vector, score: scored.score, severity: scored.severity, justification: null });
    } else if (!entry.type.startsWith('CVSS_')) {
      labels.push({ label: text, from: oneLine(entry.type) ?? 'the advisory' });
    }
  }
  if (ratings.length > 0) return ratings;
  const databases = [advisory.database_specific, ...list(advisory.affected).map((a) => record(a)['database_specific'])];
  for (const database of databases) {
    const label = record(database)['severity'];
    if (typeof label === 'string' && oneLine(label) !== null) labels.push({ label: oneLine(label) ?? '', from: 'the advisory database' });
  }
  const seen = new Set<string>();
  for (const { label, from } of labels) {
    const severity = labelSeverity(label);
    if (severity === null || seen.has(`${from}\0${label}`)) continue;
    seen.add(`${from}\0${label}`);
    ratings.push({ method: 'other', vector: null, score: null, severity, justification: `severity "${label}" given by ${from}` });
  }
  return ratings;
}

/** CWE numbers of GitHub's `database_specific.cwe_ids` (`CWE-79`), once each, in order. */
export function cwesOf(advisory: OsvAdvisory): number[] {
  const numbers = list(record(advisory.database_specific)['cwe_ids']).flatMap((id) => {
    const match = typeof id === 'string' ? /^CWE-(\d{1,9})$/i.exec(id.trim()) : null;
    const n = match?.[1] === undefined ? 0 : Number(match[1]);
    return n > 0 ? [n] : [];
  });
  return [...new Set(numbers)].sort((a, b) => a - b);
}

/** An RFC 3339 time as documents write them (UTC, whole seconds); null when it is none. */
export function fitTime(value: unknown): string | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) return null;
  const time = Date.parse(value.trim());
  if (!Number.isFinite(time)) return null;
  const iso = new Date(time).toISOString();
  // Years after 9999 are no RFC 3339 year; a time before 1970 is a placeholder (Go's vulndb
  // writes `modified` as 0001-01-01, the zero time), not a date anything was published or changed.
  return /^\d{4}-/.test(iso) && time >= 0 ? `${iso.slice(0, 19)}Z` : null;
}

/** Reference URLs that are web links (the schemas' IRI format), once each. */
function referencesOf(advisory: OsvAdvisory): string[] {
  const urls = list(advisory.references).flatMap((r) => {
    const url = oneLine(typeof record(r)['url'] === 'string' ? (record(r)['url'] as string) : null);
    return url !== null && isLink(url, WEB) ? [url] : [];
  });
  return [...new Set(urls)];
}

/** "jinja2 2.10: upgrade to 2.10.1; jinja2 2.9: upgrade to 2.10.1 or 3.0.0"; null when no fix is published. */
function recommendationOf(affects: readonly AffectedComponent[]): string | null {
  const lines = new Set<string>();
  let fixed = false;
  for (const a of affects) {
    const subject = `${a.name}${a.version === null ? '' : ` ${a.version}`}`;
    if (a.fixedVersions.length > 0) fixed = true;
    lines.add(a.fixedVersions.length > 0 ? `${subject}: upgrade to ${a.fixedVersions.join(' or ')}` : `${subject}: no fixed version is published`);
  }
  return fixed ? [...lines].join('; ') : null;
}

/** A match's id as the documents hold it (one line); null when nothing is left of it. */
function idOf(match: VulnerabilityMatch): string | null {
  return oneLine(typeof match.advisory.id === 'string' ? match.advisory.id : null);
}

/**
 * The report's advisories, one per id (matches of one advisory in two ecosystems joined),
 * affecting only components of the document, sorted by severity (critical first), then score
 * (highest first), then id.
 */
export function vulnerabilityFacts(report: VulnerabilityReport, components: ReadonlyMap<string, ComponentName>): VulnerabilityFacts[] {
  const byId = new Map<string, { match: VulnerabilityMatch; aliases: Set<string>; affects: Map<string, AffectedComponent> }>();
  for (const match of report.matches) {
    const id = idOf(match);
    if (id === null) continue;
    const entry = byId.get(id) ?? { match, aliases: new Set<string>(), affects: new Map<string, AffectedComponent>() };
    byId.set(id, entry);
    for (const alias of [...list(match.aliases), ...list(match.advisory.aliases)]) {
      const text = typeof alias === 'string' ? oneLine(alias) : null;
      if (text !== null && text !== id) entry.aliases.add(text);
    }
    for (const affected of match.affects) {
      const component = components.get(affected.ref);
      if (component === undefined || entry.affects.has(affected.ref)) continue;
      const fixedVersions = [...new Set(affected.fixedVersions.flatMap((v) => fitVersion(v) ?? []))];
      entry.affects.set(affected.ref, { ref: affected.ref, name: component.name, version: fitVersion(affected.version) ?? component.version, fixedVersions });
    }
  }
  const facts: VulnerabilityFacts[] = [];
  for (const [id, { match, aliases, affects }] of byId) {
    if (affects.size === 0) continue;
    const advisory = match.advisory;
    const ratings = ratingsOf(advisory);
    const severity = ratings.reduce<Severity>((worst, r) => (severityRank(r.severity) < severityRank(worst) ? r.severity : worst), 'unknown');
    const scores = ratings.flatMap((r) => (r.score === null ? [] : [r.score]));
    const affected = [...affects.values()];
    facts.push({
      id,
      url: osvUrl(id),
      ecosystem: oneLine(match.ecosystem) ?? 'unknown',
      aliases: [...aliases].sort(),
      ratings,
      severity,
      score: scores.length === 0 ? null : Math.max(...scores),
      cwes: cwesOf(advisory),
      summary: oneLine(typeof advisory.summary === 'string' ? advisory.summary : null),
      details: multiLine(typeof advisory.details === 'string' ? advisory.details : null),
      references: referencesOf(advisory),
      published: fitTime(advisory.published),
      modified: fitTime(advisory.modified),
      affects: affected,
      recommendation: recommendationOf(affected),
    });
  }
  return facts.sort((a, b) => severityRank(a.severity) - severityRank(b.severity) || (b.score ?? -1) - (a.score ?? -1) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Counts by severity, every severity present (zero where none). */
export function severityCounts(facts: readonly VulnerabilityFacts[]): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const f of facts) counts[f.severity] += 1;
  return counts;
}
