/**
 * Why an advisory source could not be read: the reason a sync or an import leaves the previous
 * snapshot in place, stored with the source (`failed`) and shown by `GET /v1/advisories`.
 */
export const ADVISORY_FAILURES = [
  /** The advisory database could not be reached (connection refused, DNS, deadline, address policy). */
  'unreachable',
  /** It answered with a status other than 200 or 304. */
  'http_status',
  /** It has no `<Ecosystem>/all.zip` (404/410), or pkgscope matches no such ecosystem. */
  'unknown_ecosystem',
  /** The archive is no readable zip. */
  'corrupt_archive',
  /** The archive is past a bound (download size, entries, expanded bytes, expansion ratio). */
  'archive_limit',
  /** A path given to the import is missing or unreadable. */
  'unreadable_path',
  /** The previous sync stopped (its process ended) before it finished. */
  'interrupted',
] as const;
export type AdvisoryFailure = (typeof ADVISORY_FAILURES)[number];

export class AdvisoryError extends Error {
  constructor(
    readonly code: AdvisoryFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'AdvisoryError';
  }
}
