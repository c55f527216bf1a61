import { PackageURL } from 'packageurl-js';

/**
 * `pkg:golang/<namespace>/<name>@<version>` per the purl specification's golang type: the
 * namespace is the module path up to its last segment, the name its last segment, the version the
 * module version as go.mod records it (`v` kept; `+incompatible` and pseudo-versions as the
 * library encodes them). Module paths are case-sensitive, so nothing is lowercased.
 */
export function golangPurl(modulePath: string, version: string | null): string | null {
  if (version === null) return null;
  const cut = modulePath.lastIndexOf('/');
  const namespace = cut === -1 ? undefined : modulePath.slice(0, cut);
  const name = cut === -1 ? modulePath : modulePath.slice(cut + 1);
  try {
    return new PackageURL('golang', namespace, name, version, undefined, undefined).toString();
  } catch {
    // packageurl-js refuses what is not a purl (and 2.0.1 throws a ReferenceError doing so).
    return null;
  }
}
