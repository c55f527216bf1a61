import { integrityChecksums, normalizeLicense, type Checksum, type NormalizedLicense } from '../describe.js';
import type { Evidence } from '../evidence.js';
import { coordinateKey, EMPTY_METADATA, type PackageMetadata } from '../metadata.js';
import type { Inventory, Occurrence } from '../model.js';

/** Everything a renderer needs; renderers only format, they decide nothing. */
export interface RenderInput {
  readonly inventory: Inventory;
  readonly metadata: ReadonlyMap<string, PackageMetadata>;
  readonly failedCoordinates: readonly string[];
  readonly evidence: Evidence;
  readonly generatedAt: Date;
  /** The package URL of an occurrence, by the rules of the ecosystem that built it. */
  readonly purl: (occurrence: Occurrence) => string | null;
  /** People's names of the ecosystems (`npm`, `Python`…), by id; the id where absent. */
  readonly ecosystemLabels?: ReadonlyMap<string, string>;
}

/** An occurrence with its derived facts: lockfile data first, registry metadata filling gaps. */
export interface ComponentFacts {
  readonly occurrence: Occurrence;
  readonly isRoot: boolean;
  readonly license: NormalizedLicense | null;
  readonly checksums: Checksum[];
  readonly purl: string | null;
  readonly description: string | null;
  readonly homepage: string | null;
  readonly repository: string | null;
  readonly author: string | null;
  readonly deprecated: string | null;
  /** `unknown` where the files record no scope (documents then state none). */
  readonly scope: 'required' | 'optional' | 'dev' | 'unknown';
}

export function componentFacts(input: RenderInput): ComponentFacts[] {
  const roots = new Set(input.inventory.roots);
  return input.inventory.occurrences.map((occurrence) => {
    const meta =
      occurrence.version === null
        ? EMPTY_METADATA
        : (input.metadata.get(coordinateKey(occurrence.ecosystem, occurrence.name, occurrence.version)) ?? EMPTY_METADATA);
    return {
      occurrence,
      isRoot: roots.has(occurrence.ref),
      license: normalizeLicense(occurrence.license ?? meta.license),
      checksums: integrityChecksums(occurrence.integrity),
      purl: input.purl(occurrence),
      description: meta.description,
      homepage: meta.homepage,
      repository: meta.repository,
      author: meta.author,
      deprecated: occurrence.facts['deprecated'] ?? meta.deprecated,
      scope: !occurrence.scopeKnown
        ? 'unknown'
        : occurrence.dev
          ? 'dev'
          : occurrence.optional || occurrence.peer
            ? 'optional'
            : 'required',
    };
  });
}

/** The `service:*` evidence values; structured ones are JSON text (property values are strings). */
export function evidenceProperties(input: RenderInput): { name: string; value: string }[] {
  const { inventory, evidence } = input;
  return [
    { name: 'service:completeness', value: evidence.completeness },
    { name: 'service:resolution_basis', value: evidence.basis },
    { name: 'service:resolutions', value: JSON.stringify(inventory.resolutions) },
    { name: 'service:declarations', value: JSON.stringify(inventory.declarations) },
    { name: 'service:lockfiles', value: JSON.stringify(inventory.lockfiles) },
    { name: 'service:manifest_associations', value: JSON.stringify(inventory.associations) },
    { name: 'service:notice', value: evidence.notice },
  ];
}
