import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model/model.js';

/**
 * `pkg:maven/<group>/<artifact>@<version>` per the purl specification's maven type, with `type`
 * (when not `jar`) and `classifier` as qualifiers. Occurrences are named `group:artifact`, as
 * Maven and Gradle print them; type and classifier ride in the facts.
 */
export function mavenPurl(o: Pick<Occurrence, 'name' | 'version' | 'facts'>): string | null {
  if (o.version === null || o.version === '') return null;
  const cut = o.name.indexOf(':');
  if (cut <= 0 || cut === o.name.length - 1) return null;
  const qualifiers: Record<string, string> = {};
  const type = o.facts['type'];
  if (type !== undefined && type !== 'jar') qualifiers['type'] = type;
  const classifier = o.facts['classifier'];
  if (classifier !== undefined && classifier !== '') qualifiers['classifier'] = classifier;
  try {
    return new PackageURL('maven', o.name.slice(0, cut), o.name.slice(cut + 1), o.version, Object.keys(qualifiers).length === 0 ? undefined : qualifiers, undefined).toString();
  } catch {
    // packageurl-js refuses what is not a purl (and 2.0.1 throws a ReferenceError doing so).
    return null;
  }
}
