/**
 * The `detail` of a manifest that could not be resolved, as `service:resolutions` shows it: made
 * of the caller's own facts (the package and range it declared) and a fixed phrase per npm
 * error code, never the library's message (which names registry URLs and internal state).
 */

function field(error: unknown, name: string): string | null {
  const value = (error as Record<string, unknown> | null)?.[name];
  // A value that looks like a URL is the registry's, not the caller's.
  return typeof value === 'string' && value !== '' && !value.includes('://') ? value : null;
}

/** `name@range` as the error names it (npm-pick-manifest: name/wanted; npm-registry-fetch: pkgid). */
function declared(error: unknown): string | null {
  const name = field(error, 'name');
  const wanted = field(error, 'wanted');
  if (name !== null && wanted !== null && name !== 'Error') return `${name}@${wanted}`;
  return field(error, 'pkgid');
}

export function resolutionFailureDetail(error: unknown, code: string): string {
  const what = declared(error);
  switch (code) {
    case 'ETARGET':
      return what === null ? 'no published version matches a declared range' : `no published version matches ${what}`;
    case 'E404':
      return what === null ? 'a declared package is not in the registry' : `${what} is not in the registry`;
    case 'EINVALIDTAGNAME':
      return 'a declared dependency names an invalid dist-tag';
    case 'EINVALIDPACKAGENAME':
      return 'a declared dependency has an invalid package name';
    case 'EUNSUPPORTEDPROTOCOL':
      return 'a declared dependency uses a specifier this service cannot resolve';
    case 'EJSONPARSE':
      return 'a package manifest is not valid JSON';
    case 'ERESOLVE':
      return 'the declared dependency ranges conflict';
    default:
      return `the registry refused the resolution (${code})`;
  }
}
