import type * as CvssModule from 'ae-cvss-calculator';
import { lazily, requirePackage } from '../model/lazy-require.js';

/**
 * CVSS base scores and severities of the vectors advisories carry (OSV `severity[]`), computed
 * by ae-cvss-calculator (FIRST's formulas for v2.0, v3.0, v3.1 and v4.0). The method names are
 * CycloneDX's (`ratings[].method`).
 */

export type CvssMethod = 'CVSSv2' | 'CVSSv3' | 'CVSSv31' | 'CVSSv4';

/** CycloneDX's severities, worst first. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info', 'none', 'unknown'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface CvssScore {
  readonly method: CvssMethod;
  /** The vector as the advisory gives it (trimmed). */
  readonly vector: string;
  /** The base score; null when the vector lacks a base metric or holds a value its version does not define. */
  readonly score: number | null;
  readonly severity: Severity;
}

/** The library ships one CommonJS bundle; it loads with the first vector scored. */
const cvss = lazily(() => requirePackage('ae-cvss-calculator') as typeof CvssModule);

/** Each version's base metrics: a vector missing one has no base score. */
const BASE_METRICS: Readonly<Record<CvssMethod, readonly string[]>> = {
  CVSSv2: ['AV', 'AC', 'Au', 'C', 'I', 'A'],
  CVSSv3: ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'],
  CVSSv31: ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'],
  CVSSv4: ['AV', 'AC', 'AT', 'PR', 'UI', 'VC', 'VI', 'VA', 'SC', 'SI', 'SA'],
};

/** The method a vector is written in, by its prefix; v2 vectors have none (OSV's `CVSS_V2`). */
export function cvssMethod(vector: string): CvssMethod | null {
  if (vector.startsWith('CVSS:3.0/')) return 'CVSSv3';
  if (vector.startsWith('CVSS:3.1/')) return 'CVSSv31';
  if (vector.startsWith('CVSS:4.0/')) return 'CVSSv4';
  if (/^\(?AV:[LAN]\//.test(vector)) return 'CVSSv2';
  return null;
}

/**
 * A score's severity. v3.x and v4.0 by FIRST's qualitative scale (none 0, low < 4, medium < 7,
 * high < 9, critical); v2 defines none, so NVD's v2 bands (low < 4, medium < 7, high) are used.
 */
export function severityOf(method: CvssMethod, score: number | null): Severity {
  if (score === null) return 'unknown';
  if (method === 'CVSSv2') return score < 4 ? 'low' : score < 7 ? 'medium' : 'high';
  if (score === 0) return 'none';
  return score < 4 ? 'low' : score < 7 ? 'medium' : score < 9 ? 'high' : 'critical';
}

function baseScore(method: CvssMethod, vector: string): number | null {
  const metrics = new Map<string, string>();
  for (const part of vector.replace(/^\(|\)$/g, '').split('/')) {
    const [key, value, extra] = part.split(':');
    if (key === undefined || value === undefined || extra !== undefined || metrics.has(key)) return null;
    metrics.set(key, value);
  }
  // A base metric absent or `X` (not defined, which only the other metric groups allow) leaves no base score.
  if (BASE_METRICS[method].some((m) => metrics.get(m) === undefined || metrics.get(m) === 'X')) return null;
  const { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } = cvss();
  try {
    // The library reads a v2 vector without its parentheses, and keeps a v3/v4 vector's prefix.
    const text = vector.replace(/^\(|\)$/g, '');
    const calculator = method === 'CVSSv2' ? new Cvss2(text) : method === 'CVSSv3' ? new Cvss3P0(text) : method === 'CVSSv31' ? new Cvss3P1(text) : new Cvss4P0(text);
    const scores = calculator.calculateScores();
    // v4's `base` is the library's CVSS-BT when threat metrics are given; the base score is CVSS-B.
    const score = 'baseMetricsOnly' in scores ? scores.baseMetricsOnly : scores.base;
    return typeof score === 'number' && Number.isFinite(score) && score >= 0 && score <= 10 ? Math.round(score * 10) / 10 : null;
  } catch {
    // A metric value the version does not define: the vector has no score.
    return null;
  }
}

/** The score of one CVSS vector; null when the text is no CVSS vector of a known version. */
export function scoreCvss(vector: string): CvssScore | null {
  const text = vector.trim();
  const method = cvssMethod(text);
  if (method === null) return null;
  const score = baseScore(method, text);
  return { method, vector: text, score, severity: severityOf(method, score) };
}
