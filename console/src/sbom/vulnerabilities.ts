/**
 * A CycloneDX document's `vulnerabilities[]` read into what the inventory view shows, checked
 * field by field as the rest of the document is (it may come from any tool), with counts by
 * severity and the filter the view applies.
 */

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info', 'none', 'unknown'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Vulnerability {
  readonly id: string;
  /** Its page at the source (osv.dev for pkgscope's documents). */
  readonly url: string | null;
  readonly source: string | null;
  /** The worst severity among its ratings; `unknown` without any. */
  readonly severity: Severity;
  /** The highest score among its ratings, with the method that gave it. */
  readonly score: number | null;
  readonly method: string | null;
  readonly aliases: readonly string[];
  readonly summary: string | null;
  readonly detail: string | null;
  readonly recommendation: string | null;
  readonly cwes: readonly number[];
  readonly advisories: readonly string[];
  readonly published: string | null;
  readonly updated: string | null;
  /** The components it affects (bom-refs), with the affected version where stated. */
  readonly affects: readonly { readonly ref: string; readonly version: string | null }[];
}

/** What the document says the advisories were matched against (`service:advisories`). */
export interface AdvisorySnapshot {
  readonly ecosystem: string;
  readonly advisories: number | null;
  readonly modifiedMax: string | null;
  readonly syncedAt: string | null;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function severityOf(value: unknown): Severity | null {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value) ? (value as Severity) : null;
}

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

function vulnerabilityOf(v: Json): Vulnerability | null {
  const id = str(v['id']);
  if (id === null) return null;
  const ratings = records(v['ratings']);
  let severity: Severity = 'unknown';
  let score: number | null = null;
  let method: string | null = null;
  for (const r of ratings) {
    const s = severityOf(r['severity']);
    if (s !== null && severityRank(s) < severityRank(severity)) severity = s;
    const n = r['score'];
    if (typeof n === 'number' && Number.isFinite(n) && (score === null || n > score)) {
      score = n;
      method = str(r['method']);
    }
  }
  const source = isRecord(v['source']) ? v['source'] : {};
  return {
    id,
    url: str(source['url']),
    source: str(source['name']),
    severity,
    score,
    method,
    aliases: records(v['references']).flatMap((r) => str(r['id']) ?? []),
    summary: str(v['description']),
    detail: str(v['detail']),
    recommendation: str(v['recommendation']),
    cwes: Array.isArray(v['cwes']) ? v['cwes'].filter((n): n is number => Number.isInteger(n)) : [],
    advisories: records(v['advisories']).flatMap((a) => str(a['url']) ?? []),
    published: str(v['published']),
    updated: str(v['updated']),
    affects: records(v['affects']).flatMap((a) => {
      const ref = str(a['ref']);
      if (ref === null) return [];
      const version = records(a['versions']).map((x) => str(x['version'])).find((x) => x !== null) ?? null;
      return [{ ref, version }];
    }),
  };
}

/** The document's vulnerabilities, worst first (then score, then id); null when it has no `vulnerabilities` member. */
export function readVulnerabilities(doc: Json): Vulnerability[] | null {
  if (!Array.isArray(doc['vulnerabilities'])) return null;
  return records(doc['vulnerabilities'])
    .flatMap((v) => vulnerabilityOf(v) ?? [])
    .sort((a, b) => severityRank(a.severity) - severityRank(b.severity) || (b.score ?? -1) - (a.score ?? -1) || a.id.localeCompare(b.id));
}

/** The `service:advisories` evidence value, read; empty when absent or not the expected JSON. */
export function readSnapshots(value: string | undefined): AdvisorySnapshot[] {
  if (value === undefined) return [];
  try {
    return records(JSON.parse(value)).flatMap((s) => {
      const ecosystem = str(s['ecosystem']);
      if (ecosystem === null) return [];
      return [{ ecosystem, advisories: typeof s['advisories'] === 'number' ? s['advisories'] : null, modifiedMax: str(s['modified_max']), syncedAt: str(s['synced_at']) }];
    });
  } catch {
    return [];
  }
}

/** Counts by severity, every severity present. */
export function severityCounts(vulnerabilities: readonly Vulnerability[]): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const v of vulnerabilities) counts[v.severity] += 1;
  return counts;
}

/**
 * The vulnerabilities of the chosen severities whose id, aliases, summary or affected
 * components' names hold every word of `text`.
 */
export function filterVulnerabilities(vulnerabilities: readonly Vulnerability[], severities: ReadonlySet<Severity>, text: string, nameOf: (ref: string) => string): Vulnerability[] {
  const words = text.toLowerCase().split(/\s+/).filter((w) => w !== '');
  return vulnerabilities.filter((v) => {
    if (severities.size > 0 && !severities.has(v.severity)) return false;
    if (words.length === 0) return true;
    const haystack = `${v.id} ${v.aliases.join(' ')} ${v.summary ?? ''} ${v.affects.map((a) => nameOf(a.ref)).join(' ')}`.toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}

/** The vulnerabilities affecting each component (bom-ref). */
export function byComponent(vulnerabilities: readonly Vulnerability[]): Map<string, Vulnerability[]> {
  const map = new Map<string, Vulnerability[]>();
  for (const v of vulnerabilities) {
    for (const a of v.affects) {
      const list = map.get(a.ref) ?? [];
      if (!list.includes(v)) list.push(v);
      map.set(a.ref, list);
    }
  }
  return map;
}

/**
 * The part of a recommendation about one component: pkgscope writes one clause per affected
 * component ("jinja2 2.10: upgrade to 2.10.1; …"); another tool's text is shown whole.
 */
export function fixFor(v: Vulnerability, name: string, version: string): string | null {
  if (v.recommendation === null) return null;
  const clause = v.recommendation.split('; ').find((c) => c.startsWith(`${name} ${version}:`) || c.startsWith(`${name}:`));
  return clause ?? v.recommendation;
}
