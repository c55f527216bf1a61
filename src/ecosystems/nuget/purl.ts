import { PackageURL } from 'packageurl-js';
import type { Occurrence } from '../../model/model.js';

/** `pkg:nuget/<Id>@<version>` per the purl specification's `nuget` type (the id as the package spells it). */
export function nugetPurl(o: Occurrence): string | null {
  if (o.version === null || o.source !== 'registry') return null;
  try {
    return new PackageURL('nuget', undefined, o.name, o.version, undefined, undefined).toString();
  } catch {
    return null;
  }
}
