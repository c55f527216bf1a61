import { integrityChecksums, normalizeLicense, type Checksum, type NormalizedLicense } from '../describe.js';
import { noticeWith, type Evidence } from '../evidence.js';
import { coordinateKey, EMPTY_METADATA, type PackageMetadata } from '../../model/metadata.js';
import type { Inventory, Occurrence } from '../../model/model.js';
import { advisoryEvidence } from '../../advisories/render/evidence.js';
import type { VulnerabilityReport } from '../../advisories/types.js';
import { fitDownload, fitHomepage, fitPerson, fitRepository, fitVersion, LeftOut, multiLine, oneLine, type Person } from './fit.js';

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
  /** The advisories matched to the inventory; absent when vulnerabilities were not asked for. */
  readonly vulnerabilities?: VulnerabilityReport;
}

/**
 * An occurrence with its derived facts: lockfile data first, registry metadata filling gaps, every
 * value fitted to the documents (see fit.ts). Renderers read these, not the occurrence's raw text.
 */
export interface ComponentFacts {
  readonly occurrence: Occurrence;
  readonly isRoot: boolean;
  /** One line, never empty. */
  readonly name: string;
  readonly version: string | null;
  readonly license: NormalizedLicense | null;
  readonly checksums: Checksum[];
  readonly purl: string | null;
  readonly description: string | null;
  readonly homepage: string | null;
  readonly repository: string | null;
  readonly author: Person | null;
  /** Who supplies it, as the registry names them (see metadata.ts `Supplier`); null when none is known. */
  readonly supplier: SuppliedBy | null;
  readonly deprecated: string | null;
  /** Where the package was downloaded from, when the lockfile records a link to it. */
  readonly download: string | null;
  /** `unknown` where the files record no scope (documents then state none). */
  readonly scope: 'required' | 'optional' | 'dev' | 'unknown';
}

/** A supplier with its parts fitted to the documents. */
export interface SuppliedBy extends Person {
  readonly kind: 'person' | 'organization';
}

/**
 * The subject the documents describe when the upload names no project root (a lockfile that
 * records none: mix.lock, poetry.lock, requirements.txt… uploaded without their manifest).
 */
export interface UploadRoot {
  /** Unique among the occurrences' refs. */
  readonly ref: string;
  /** The lockfiles' folder, else `uploaded-manifests`. */
  readonly name: string;
  /** The top-level components: those no other component depends on. */
  readonly dependsOn: readonly string[];
}

export interface FittedFacts {
  readonly components: ComponentFacts[];
  /** Set when the inventory has components but no project root. */
  readonly uploadRoot: UploadRoot | null;
  /** Values left out because they do not fit the documents. */
  readonly leftOut: LeftOut;
}

/** `value` when it fits, counting it in `leftOut` when a value was there but does not. */
function kept<T>(raw: string | null, fitted: T | null, field: Parameters<LeftOut['add']>[0], leftOut: LeftOut): T | null {
  if (fitted === null && oneLine(raw) !== null) leftOut.add(field);
  return fitted;
}

export function componentFacts(input: RenderInput): FittedFacts {
  const roots = new Set(input.inventory.roots);
  const leftOut = new LeftOut();
  // One package version installed at many paths records the same integrity and download link at
  // each: in a large monorepo's lockfile, five or six occurrences per version. Each text is
  // decoded and fitted once per render (the answers are immutable, so they are shared).
  const checksumsOf = new Map<string, Checksum[]>();
  const checksums = (integrity: string | null): Checksum[] => {
    if (integrity === null) return [];
    let sums = checksumsOf.get(integrity);
    if (sums === undefined) {
      sums = integrityChecksums(integrity);
      checksumsOf.set(integrity, sums);
    }
    return sums;
  };
  const downloads = new Map<string, string | null>();
  const download = (url: string | null): string | null => {
    if (url === null) return null;
    let fitted = downloads.get(url);
    if (fitted === undefined) {
      fitted = fitDownload(url);
      downloads.set(url, fitted);
    }
    return fitted;
  };
  const components = input.inventory.occurrences.map((occurrence): ComponentFacts => {
    const meta =
      occurrence.version === null
        ? EMPTY_METADATA
        : (input.metadata.get(coordinateKey(occurrence.ecosystem, occurrence.name, occurrence.version)) ?? EMPTY_METADATA);
    const author = fitPerson(meta.author);
    for (const field of author.leftOut) leftOut.add(field);
    // npm's supplier is often its author: one value, fitted (and counted) once.
    const supplier = !meta.supplier ? null : meta.supplier.party === meta.author ? author : fitPerson(meta.supplier.party);
    if (supplier !== author) for (const field of supplier?.leftOut ?? []) leftOut.add(field);
    const distributed = occurrence.source === 'registry' || occurrence.source === 'tarball' ? occurrence.resolved : null;
    return {
      occurrence,
      isRoot: roots.has(occurrence.ref),
      name: oneLine(occurrence.name) ?? occurrence.ref,
      version: kept(occurrence.version, fitVersion(occurrence.version), 'version', leftOut),
      license: normalizeLicense(multiLine(occurrence.license ?? meta.license)),
      checksums: checksums(occurrence.integrity),
      purl: input.purl(occurrence),
      description: multiLine(meta.description),
      homepage: kept(meta.homepage, fitHomepage(meta.homepage), 'homepage', leftOut),
      repository: kept(meta.repository, fitRepository(meta.repository), 'repository', leftOut),
      author: author.person,
      supplier: supplier?.person && meta.supplier ? { ...supplier.person, kind: meta.supplier.kind } : null,
      deprecated: oneLine(occurrence.facts['deprecated'] ?? meta.deprecated),
      download: kept(distributed, download(distributed), 'download location', leftOut),
      scope: !occurrence.scopeKnown
        ? 'unknown'
        : occurrence.dev
          ? 'dev'
          : occurrence.optional || occurrence.peer
            ? 'optional'
            : 'required',
    };
  });
  return { components, uploadRoot: uploadRootOf(input.inventory), leftOut };
}

/** The folder every lockfile of the upload is in (its last segment), else `uploaded-manifests`. */
function uploadName(occurrences: readonly Occurrence[]): string {
  const folders = new Set(occurrences.map((o) => o.lockfile.split('/').slice(0, -1).join('/')));
  const [only] = folders;
  const name = folders.size === 1 && only !== undefined ? oneLine(only.split('/').pop()) : null;
  return name ?? 'uploaded-manifests';
}

export function uploadRootOf(inventory: Inventory): UploadRoot | null {
  const refs = new Set(inventory.occurrences.map((o) => o.ref));
  if (inventory.occurrences.length === 0 || inventory.roots.some((r) => refs.has(r))) return null;
  const depended = new Set<string>();
  for (const o of inventory.occurrences) for (const d of o.dependencies) if (d.ref !== o.ref) depended.add(d.ref);
  const top = inventory.occurrences.filter((o) => !depended.has(o.ref)).map((o) => o.ref);
  let ref = 'pkgscope-upload';
  for (let n = 2; refs.has(ref); n++) ref = `pkgscope-upload-${n}`;
  // A graph of cycles only has no top: the upload then depends on every component.
  return { ref, name: uploadName(inventory.occurrences), dependsOn: top.length > 0 ? top : [...refs] };
}

/**
 * The `service:*` evidence values; structured ones are JSON text (property values are strings).
 * The notice names the values `leftOut` of this document.
 */
export function evidenceProperties(input: RenderInput, leftOut: LeftOut): { name: string; value: string }[] {
  const { inventory, evidence } = input;
  return [
    { name: 'service:completeness', value: evidence.completeness },
    { name: 'service:resolution_basis', value: evidence.basis },
    { name: 'service:resolutions', value: JSON.stringify(inventory.resolutions) },
    { name: 'service:declarations', value: JSON.stringify(inventory.declarations) },
    { name: 'service:lockfiles', value: JSON.stringify(inventory.lockfiles) },
    { name: 'service:manifest_associations', value: JSON.stringify(inventory.associations) },
    { name: 'service:notice', value: noticeWith(evidence, leftOut.entries()) },
    ...advisoryEvidence(input.vulnerabilities),
  ];
}
