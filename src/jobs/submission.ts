import { createHash } from 'node:crypto';
import { environmentIdentity, type AnalysisEnvironment } from '../model/environment.js';
import type { InputFile, OutputFormat } from '../model/types.js';

/** Limits of one upload (submit and synchronous SBOM alike). */
export const UPLOAD_LIMITS = {
  maxFiles: 500,
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
  maxPathBytes: 1024,
} as const;

export type UploadCheck = { readonly ok: true; readonly totalBytes: number } | { readonly ok: false; readonly detail: string };

/** Why a path is not acceptable, or null: relative, `/`-separated, no `.`/`..`/empty segments. */
export function pathProblem(path: string): string | null {
  if (path === '') return 'is empty';
  if (Buffer.byteLength(path, 'utf8') > UPLOAD_LIMITS.maxPathBytes) return `is longer than ${UPLOAD_LIMITS.maxPathBytes} bytes`;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(path)) return 'contains control characters';
  if (path.includes('\\')) return 'must use / as the separator';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'must be relative';
  const segments = path.split('/');
  if (segments.some((s) => s === '..')) return 'must not contain ..';
  if (segments.some((s) => s === '' || s === '.')) return 'must not contain empty or . segments';
  return null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Checks paths, duplicates, sizes and well-formed text; the detail names the offending file. */
export function checkUpload(files: readonly InputFile[]): UploadCheck {
  if (files.length === 0) return { ok: false, detail: 'At least one file is required.' };
  if (files.length > UPLOAD_LIMITS.maxFiles) return { ok: false, detail: `At most ${UPLOAD_LIMITS.maxFiles} files may be uploaded.` };
  const seen = new Set<string>();
  let total = 0;
  for (const file of files) {
    const problem = pathProblem(file.path);
    if (problem !== null) return { ok: false, detail: `File path ${JSON.stringify(file.path)} ${problem}.` };
    if (seen.has(file.path)) return { ok: false, detail: `File path ${JSON.stringify(file.path)} is uploaded twice.` };
    seen.add(file.path);
    // JSON strings can carry lone surrogates, which are not UTF-8 text.
    if (LONE_SURROGATE.test(file.content)) return { ok: false, detail: `File ${JSON.stringify(file.path)} is not valid UTF-8 text.` };
    const bytes = Buffer.byteLength(file.content, 'utf8');
    if (bytes > UPLOAD_LIMITS.maxFileBytes) {
      return { ok: false, detail: `File ${JSON.stringify(file.path)} is larger than ${UPLOAD_LIMITS.maxFileBytes} bytes.` };
    }
    total += bytes;
    if (total > UPLOAD_LIMITS.maxTotalBytes) {
      return { ok: false, detail: `The files together are larger than ${UPLOAD_LIMITS.maxTotalBytes} bytes.` };
    }
  }
  return { ok: true, totalBytes: total };
}

/**
 * Identity of a request for idempotency: the format, every file in order, the environment when
 * one is given and `vulnerabilities` when asked for (a request without them hashes as it always did).
 */
export function requestHash(format: OutputFormat, files: readonly InputFile[], environment: AnalysisEnvironment | null = null, vulnerabilities = false): string {
  const hash = createHash('sha256');
  hash.update(format);
  const env = environmentIdentity(environment);
  if (env !== '') hash.update(`\0environment:${env}`);
  if (vulnerabilities) hash.update('\0vulnerabilities');
  for (const f of files) {
    hash.update(`\0${Buffer.byteLength(f.path)}:${f.path}\0${Buffer.byteLength(f.content)}:`);
    hash.update(f.content);
  }
  return hash.digest('hex');
}

/** `Idempotency-Key`: 1–255 printable ASCII characters, sent at most once. */
export function parseIdempotencyKey(values: readonly string[] | undefined): { ok: true; key: string | null } | { ok: false } {
  if (values === undefined) return { ok: true, key: null };
  if (values.length !== 1) return { ok: false };
  const key = values[0] ?? '';
  return /^[\x20-\x7e]{1,255}$/.test(key) ? { ok: true, key } : { ok: false };
}
