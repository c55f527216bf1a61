import { LRUCache } from 'lru-cache';
import spdxCorrect from 'spdx-correct';
import parseSpdx from 'spdx-expression-parse';

/** Facts the renderers derive from an occurrence: license, hashes, purl, name parts. */

export type NormalizedLicense =
  | { readonly kind: 'expression'; readonly expression: string }
  | { readonly kind: 'named'; readonly name: string };

type SpdxNode = ReturnType<typeof parseSpdx>;

function render(node: SpdxNode, nested = false): string {
  if ('license' in node) {
    const id = `${node.license}${node.plus === true ? '+' : ''}`;
    return node.exception === undefined ? id : `${id} WITH ${node.exception}`;
  }
  const text = `${render(node.left, true)} ${node.conjunction.toUpperCase()} ${render(node.right, true)}`;
  return nested ? `(${text})` : text;
}

function tryExpression(text: string): string | null {
  try {
    return render(parseSpdx(text));
  } catch {
    return null;
  }
}

/**
 * Licenses normalised before, by their declared text: a lockfile declares a handful of distinct
 * licenses over all its packages (MIT on most), and parsing each package's declaration again was
 * about 4 % of a small analysis. Answers are immutable, so they are shared.
 */
const normalized = new LRUCache<string, NormalizedLicense>({ max: 2_000 });

/**
 * A declared license as a valid SPDX expression (corrected where spdx-correct knows the intent,
 * e.g. "Apache 2.0" → Apache-2.0), or else kept verbatim as a named license.
 */
export function normalizeLicense(raw: string | null | undefined): NormalizedLicense | null {
  const text = raw?.trim();
  if (text === undefined || text === '') return null;
  let license = normalized.get(text);
  if (license === undefined) {
    license = normalizeText(text);
    normalized.set(text, license);
  }
  return license;
}

function normalizeText(text: string): NormalizedLicense {
  // npm's own words, never to be "corrected": UNLICENSED means proprietary (not the Unlicense).
  if (/^UNLICENSED$/i.test(text) || /^SEE LICEN[CS]E IN /i.test(text)) return { kind: 'named', name: text };
  const direct = tryExpression(text);
  if (direct !== null) return { kind: 'expression', expression: direct };
  // Compound declarations with a misspelt member: correct each operand on its own (correcting
  // the whole text would keep one operand and silently drop the others).
  const parts = text.replace(/^\((.*)\)$/, '$1').split(/\s+(OR|AND)\s+/i);
  if (parts.length > 1) {
    // spdx-correct throws on an empty operand ("(MIT OR )"): no correction for it.
    const fixed = parts.map((part, i) => (i % 2 === 1 ? part.toUpperCase() : part.trim() === '' ? null : spdxCorrect(part, { upgrade: true })));
    const expression = fixed.every((p) => p !== null) ? tryExpression(fixed.join(' ')) : null;
    return expression === null ? { kind: 'named', name: text } : { kind: 'expression', expression };
  }
  const corrected = spdxCorrect(text, { upgrade: true });
  const expression = corrected === null ? null : tryExpression(corrected);
  return expression === null ? { kind: 'named', name: text } : { kind: 'expression', expression };
}

export interface Checksum {
  /** CycloneDX / SPDX algorithm label of the hash as it was recorded. */
  readonly algorithm: 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512';
  readonly hex: string;
}

const SRI_ALGORITHMS: Readonly<Record<string, { algorithm: Checksum['algorithm']; bytes: number }>> = {
  sha1: { algorithm: 'SHA-1', bytes: 20 },
  sha256: { algorithm: 'SHA-256', bytes: 32 },
  sha384: { algorithm: 'SHA-384', bytes: 48 },
  sha512: { algorithm: 'SHA-512', bytes: 64 },
};

/**
 * Hashes of the package tarball from a subresource-integrity string ("sha512-<base64> …").
 * Only algorithms the string names are reported, and only digests of the right length.
 */
export function integrityChecksums(integrity: string | null): Checksum[] {
  if (integrity === null) return [];
  const result: Checksum[] = [];
  const seen = new Set<string>();
  for (const token of integrity.trim().split(/\s+/)) {
    const match = /^(sha1|sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})(\?.*)?$/.exec(token);
    if (!match?.[1] || match[2] === undefined) continue;
    const spec = SRI_ALGORITHMS[match[1]];
    const digest = Buffer.from(match[2], 'base64');
    if (!spec || digest.length !== spec.bytes || seen.has(spec.algorithm)) continue;
    seen.add(spec.algorithm);
    result.push({ algorithm: spec.algorithm, hex: digest.toString('hex') });
  }
  return result;
}
