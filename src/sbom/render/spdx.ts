import { randomUUID } from 'node:crypto';
import parseSpdx from 'spdx-expression-parse';
import type { NormalizedLicense } from '../describe.js';
import type { LeftOut, Person } from './fit.js';
import { isSpdxDownloadLocation, isSpdxUrl } from './formats.js';
import { componentFacts, evidenceProperties, type ComponentFacts, type RenderInput } from './input.js';
import { writeJson, type BoundedOutput } from './output.js';
import { spdxAdvisoryRefs, withAdvisoryRefs } from '../../advisories/render/spdx.js';

/**
 * SPDX 2.3 JSON: one package per occurrence, DESCRIBES for project roots (else for a package
 * standing for the upload), DEPENDS_ON for edges.
 */

const SPDX_CHECKSUM: Readonly<Record<string, string>> = {
  'SHA-1': 'SHA1',
  'SHA-256': 'SHA256',
  'SHA-384': 'SHA384',
  'SHA-512': 'SHA512',
};

/** SPDX ids allow only letters, digits, `.` and `-`. */
export function sanitizeIdPart(text: string): string {
  const cleaned = text
    .replace(/[^A-Za-z0-9.-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '');
  return cleaned === '' ? 'x' : cleaned;
}

class IdAllocator {
  private readonly used = new Set<string>();
  allocate(base: string): string {
    let id = base;
    for (let n = 2; this.used.has(id); n++) id = `${base}-${n}`;
    this.used.add(id);
    return id;
  }
}

interface ExtractedLicense {
  readonly licenseId: string;
  readonly extractedText: string;
  readonly name: string;
}

/** License text that is not an SPDX expression becomes a LicenseRef with its text extracted. */
class LicenseRefs {
  private readonly byText = new Map<string, ExtractedLicense>();
  private readonly ids = new IdAllocator();

  refFor(text: string): string {
    const existing = this.byText.get(text);
    if (existing) return existing.licenseId;
    const licenseId = this.ids.allocate(`LicenseRef-${sanitizeIdPart(text).slice(0, 60)}`);
    this.byText.set(text, { licenseId, extractedText: text, name: text.slice(0, 200) });
    return licenseId;
  }

  /** LicenseRefs an expression already names must be declared too. */
  declareIn(expression: string): void {
    const walk = (node: ReturnType<typeof parseSpdx>): void => {
      if ('license' in node) {
        if (node.license.startsWith('LicenseRef-') && !this.byText.has(node.license)) {
          this.ids.allocate(node.license);
          this.byText.set(node.license, {
            licenseId: node.license,
            extractedText: 'The text of this license was not available to the analysis.',
            name: node.license,
          });
        }
        return;
      }
      walk(node.left);
      walk(node.right);
    };
    walk(parseSpdx(expression));
  }

  all(): ExtractedLicense[] {
    return [...this.byText.values()];
  }
}

function declared(license: NormalizedLicense | null, refs: LicenseRefs): string {
  if (license === null) return 'NOASSERTION';
  if (license.kind === 'named') return refs.refFor(license.name);
  refs.declareIn(license.expression);
  return license.expression;
}

/** SPDX's agent syntax, "Person: name (email)" (a URL has no place in it); null with neither name nor email. */
function agent(kind: 'Person' | 'Organization', who: Person | null): string | null {
  if (who === null) return null;
  if (who.name === null) return who.email === null ? null : `${kind}: ${who.email}`;
  return `${kind}: ${who.name}${who.email === null ? '' : ` (${who.email})`}`;
}

function supplier(f: ComponentFacts): string {
  if (f.supplier === null) return 'NOASSERTION';
  return agent(f.supplier.kind === 'organization' ? 'Organization' : 'Person', f.supplier) ?? 'NOASSERTION';
}

/** Where the package came from: a registry or tarball download, else the recorded source (git and the like). */
function downloadLocation(f: ComponentFacts): string | null {
  const resolved = f.occurrence.resolved;
  if (f.download !== null) return f.download;
  return resolved !== null && /^(https?|git\+[a-z]+|git|ssh):/.test(resolved) ? resolved : null;
}

/**
 * An SPDX package. Links SPDX's own patterns refuse (hosts without a domain name, such as a
 * registry on a private address) are left out of this document, and counted in `leftOut`.
 */
function spdxPackage(f: ComponentFacts, id: string, refs: LicenseRefs, leftOut: LeftOut): Record<string, unknown> {
  const o = f.occurrence;
  const download = downloadLocation(f);
  const location = download !== null && isSpdxDownloadLocation(download) ? download : null;
  if (download !== null && location === null && f.download !== null) leftOut.add('download location');
  const homepage = f.homepage !== null && isSpdxUrl(f.homepage) ? f.homepage : null;
  if (f.homepage !== null && homepage === null) leftOut.add('homepage');
  if (f.author !== null && f.author.url !== null) leftOut.add('author URL');
  const originator = agent('Person', f.author);
  const pkg: Record<string, unknown> = {
    SPDXID: id,
    name: f.name,
    versionInfo: f.version ?? undefined,
    downloadLocation: location ?? 'NOASSERTION',
    filesAnalyzed: false,
    licenseConcluded: 'NOASSERTION',
    licenseDeclared: declared(f.license, refs),
    copyrightText: 'NOASSERTION',
    // The author made the package (originator); the supplier distributes it, as its registry names them.
    supplier: supplier(f),
    ...(originator === null ? {} : { originator }),
    primaryPackagePurpose: f.isRoot ? 'APPLICATION' : 'LIBRARY',
  };
  if (f.description !== null) pkg['description'] = f.description;
  if (homepage !== null) pkg['homepage'] = homepage;
  if (f.checksums.length > 0) {
    pkg['checksums'] = f.checksums.map((c) => ({ algorithm: SPDX_CHECKSUM[c.algorithm], checksumValue: c.hex }));
  }
  if (f.purl !== null) {
    pkg['externalRefs'] = [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: f.purl }];
  }
  const notes = [
    o.installPath === '' ? null : `install path: ${o.installPath}`,
    `ecosystem: ${o.ecosystem}`,
    `lockfile: ${o.lockfile}`,
    `scope: ${f.scope}`,
    o.alias === null ? null : `installed as alias ${o.alias}`,
    f.deprecated === null ? null : `deprecated: ${f.deprecated}`,
  ].filter((n): n is string => n !== null);
  pkg['comment'] = notes.join('; ');
  return pkg;
}

/** The package standing for an upload that names no project (no version: the files record none). */
function uploadPackage(id: string, name: string): Record<string, unknown> {
  return {
    SPDXID: id,
    name,
    downloadLocation: 'NOASSERTION',
    filesAnalyzed: false,
    licenseConcluded: 'NOASSERTION',
    licenseDeclared: 'NOASSERTION',
    copyrightText: 'NOASSERTION',
    supplier: 'NOASSERTION',
    primaryPackagePurpose: 'APPLICATION',
    comment: 'the uploaded files: their lockfiles record no project of their own',
  };
}

export function renderSpdx(input: RenderInput, out: BoundedOutput): void {
  const fitted = componentFacts(input);
  const facts = fitted.components;
  // What only SPDX leaves out is this document's to count.
  const leftOut = fitted.leftOut.copy();
  const ids = new IdAllocator();
  const refs = new LicenseRefs();
  const idOf = new Map<string, string>();
  for (const f of facts) {
    const base = `SPDXRef-Package-${sanitizeIdPart(f.occurrence.name)}${f.occurrence.version === null ? '' : `-${sanitizeIdPart(f.occurrence.version)}`}`;
    idOf.set(f.occurrence.ref, ids.allocate(base));
  }
  // Advisories matched to the inventory (issue #33): a SECURITY reference on each affected package.
  const advisories = input.vulnerabilities === undefined ? null : spdxAdvisoryRefs(input.vulnerabilities, new Map(facts.map((f) => [f.occurrence.ref, { name: f.name, version: f.version }])));
  const packages = facts.map((f) => withAdvisoryRefs(spdxPackage(f, idOf.get(f.occurrence.ref) ?? '', refs, leftOut), advisories?.get(f.occurrence.ref)));
  const relationships: Record<string, string>[] = [];
  const upload = fitted.uploadRoot;
  if (upload !== null) {
    // No project root: the document describes the upload, which depends on its top-level components.
    const id = ids.allocate(`SPDXRef-Package-${sanitizeIdPart(upload.name)}`);
    packages.unshift(uploadPackage(id, upload.name));
    relationships.push({ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: id });
    for (const ref of upload.dependsOn) {
      const to = idOf.get(ref);
      if (to !== undefined) relationships.push({ spdxElementId: id, relationshipType: 'DEPENDS_ON', relatedSpdxElement: to });
    }
  }
  for (const f of facts) {
    if (f.isRoot) {
      relationships.push({
        spdxElementId: 'SPDXRef-DOCUMENT',
        relationshipType: 'DESCRIBES',
        relatedSpdxElement: idOf.get(f.occurrence.ref) ?? '',
      });
    }
  }
  for (const f of facts) {
    const from = idOf.get(f.occurrence.ref) ?? '';
    for (const dep of f.occurrence.dependencies) {
      const to = idOf.get(dep.ref);
      if (to !== undefined) relationships.push({ spdxElementId: from, relationshipType: 'DEPENDS_ON', relatedSpdxElement: to });
    }
  }
  const evidence = evidenceProperties(input, leftOut);
  const documentName = facts.find((f) => f.isRoot)?.name ?? upload?.name ?? 'uploaded-manifests';
  const document = {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `pkgscope inventory of ${documentName}`,
    documentNamespace: `https://pkgscope.invalid/spdxdocs/${sanitizeIdPart(documentName)}-${randomUUID()}`,
    creationInfo: {
      created: `${input.generatedAt.toISOString().slice(0, 19)}Z`,
      creators: ['Tool: pkgscope-0.1.0'],
      comment: evidence.map((p) => `${p.name}=${p.value}`).join('\n'),
    },
    documentDescribes: undefined,
    packages,
    relationships,
    hasExtractedLicensingInfos: refs.all(),
  };
  writeJson(out, document);
}
