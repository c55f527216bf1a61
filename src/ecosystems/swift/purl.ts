import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model/model.js';

/**
 * `pkg:swift/<host>/<owner>/<repo>@<version>` per the purl specification's `swift` type: the
 * namespace is the repository's host and path, the name its last component (`.git` dropped); a
 * registry package is `pkg:swift/<scope>/<name>`. Local packages have no purl.
 */
export function swiftPurl(o: Occurrence): string | null {
  if (o.version === null || o.source === 'file' || o.source === 'root') return null;
  const location = o.resolved;
  try {
    if (location === null) {
      const [scope, name] = o.name.split('.');
      return scope === undefined || name === undefined ? null : new PackageURL('swift', scope, name, o.version, undefined, undefined).toString();
    }
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? new URL(location) : new URL(`ssh://${location.replace(':', '/')}`);
    const parts = `${url.host}${url.pathname}`.replace(/\/+$/, '').replace(/\.git$/i, '').split('/').filter((p) => p !== '');
    const name = parts.pop();
    if (name === undefined || parts.length === 0) return null;
    return new PackageURL('swift', parts.join('/'), name, o.version, undefined, undefined).toString();
  } catch {
    return null;
  }
}
