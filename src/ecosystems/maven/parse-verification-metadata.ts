import { childOf, isNode, JvmFileError, xmlReader, type XmlNode } from './xml.js';

/**
 * Gradle's dependency verification file, `gradle/verification-metadata.xml`
 * (https://docs.gradle.org/current/userguide/dependency_verification.html): per component
 * (`group`, `name`, `version`), its artifacts (jar, pom, module…) with `sha1`/`sha256`/`sha512`
 * checksums (`value`, plus `also-trust` alternatives) and PGP keys. Only the checksums are read.
 */

export interface VerifiedArtifact {
  readonly name: string;
  /** Algorithm (`sha256`, `sha512`, `sha1`, `md5`) → hex digest, the first `value` of each. */
  readonly checksums: ReadonlyMap<string, string>;
}

export interface VerifiedComponent {
  readonly group: string;
  readonly name: string;
  readonly version: string;
  readonly artifacts: readonly VerifiedArtifact[];
}

const reader = xmlReader(['component', 'artifact'], true);
const ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha512'] as const;

function items(v: unknown): XmlNode[] {
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter(isNode);
}

function attr(node: XmlNode, name: string): string | null {
  const v = node[`@${name}`];
  return typeof v === 'string' && v !== '' ? v : null;
}

export function parseVerificationMetadata(text: string): VerifiedComponent[] {
  const root = reader.read(text, 'verification-metadata');
  const out: VerifiedComponent[] = [];
  for (const c of items(childOf(root, 'components')?.['component'])) {
    const group = attr(c, 'group');
    const name = attr(c, 'name');
    const version = attr(c, 'version');
    if (group === null || name === null || version === null) throw new JvmFileError('malformed', 'a <component> needs group, name and version');
    const artifacts: VerifiedArtifact[] = [];
    for (const a of items(c['artifact'])) {
      const artifactName = attr(a, 'name');
      if (artifactName === null) continue;
      const checksums = new Map<string, string>();
      for (const alg of ALGORITHMS) {
        const first = items(a[alg])[0];
        const value = first === undefined ? null : attr(first, 'value');
        if (value !== null && /^[0-9a-fA-F]+$/.test(value)) checksums.set(alg, value.toLowerCase());
      }
      artifacts.push({ name: artifactName, checksums });
    }
    out.push({ group, name, version, artifacts });
  }
  return out;
}

const BINARY = /\.(jar|aar|klib|war)$/;
const METADATA = /\.(pom|module)$/;

/** Only a POM or Gradle module metadata: a parent, a BOM or a platform, not something on a classpath. */
export function isMetadataOnly(c: VerifiedComponent): boolean {
  return c.artifacts.every((a) => METADATA.test(a.name));
}

/** The component's own artifact (`<name>-<version>.jar` or `.aar`, else its first binary, else the POM). */
export function mainArtifact(c: VerifiedComponent): VerifiedArtifact | null {
  const stem = `${c.name}-${c.version}`;
  return (
    c.artifacts.find((a) => a.name === `${stem}.jar` || a.name === `${stem}.aar`) ??
    c.artifacts.find((a) => BINARY.test(a.name) && !a.name.endsWith('-sources.jar') && !a.name.endsWith('-javadoc.jar')) ??
    c.artifacts.find((a) => a.name === `${stem}.pom`) ??
    null
  );
}

/** An artifact's SHA-256 and SHA-512 as a subresource-integrity string (what documents read hashes from). */
export function integrityOf(a: VerifiedArtifact): string | null {
  const parts: string[] = [];
  for (const alg of ['sha256', 'sha512']) {
    const hex = a.checksums.get(alg);
    if (hex !== undefined) parts.push(`${alg}-${Buffer.from(hex, 'hex').toString('base64')}`);
  }
  return parts.length === 0 ? null : parts.join(' ');
}
