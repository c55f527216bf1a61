import { isNode, xmlReader, type XmlNode, type XmlValue } from '../maven/xml.js';

/**
 * MSBuild files read as data, never built: `PackageReference` (Include or Update, `Version`
 * attribute or element, `VersionOverride`, `PrivateAssets`), `ProjectReference`,
 * `PackageVersion`/`GlobalPackageReference` (central package management) and literal
 * `PropertyGroup` properties for `$(Name)` in versions. Conditions are not evaluated: every item
 * counts, as a restore on any configuration could use it. The XML reader (bounded in size and
 * depth, entities off) is the one the JVM module reads POMs with.
 */

export interface PackageRef {
  readonly name: string;
  readonly version: string | null;
  readonly versionOverride: string | null;
  /** `PrivateAssets="all"`: a development-only reference (analyzers, build tools). */
  readonly privateAll: boolean;
}

export interface MsbuildFile {
  readonly packageRefs: readonly PackageRef[];
  /** `ProjectReference` paths as written (backslashes kept). */
  readonly projectRefs: readonly string[];
  readonly packageVersions: ReadonlyMap<string, string>;
  readonly globalRefs: readonly PackageRef[];
  readonly properties: ReadonlyMap<string, string>;
}

const reader = xmlReader(['ItemGroup', 'PropertyGroup', 'PackageReference', 'ProjectReference', 'PackageVersion', 'GlobalPackageReference', 'package'], true);

function attr(node: XmlNode, name: string): string | null {
  const v = node[`@${name}`] ?? node[name];
  if (typeof v === 'string') return v.trim() === '' ? null : v.trim();
  if (isNode(v) && typeof v['#text'] === 'string') return v['#text'].trim() === '' ? null : v['#text'].trim();
  return null;
}

function nodes(value: XmlValue | undefined): XmlNode[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter((v): v is XmlNode => isNode(v));
}

function items(project: XmlNode, name: string): XmlNode[] {
  return nodes(project['ItemGroup']).flatMap((g) => nodes(g[name]));
}

function ref(node: XmlNode): PackageRef | null {
  const name = attr(node, 'Include') ?? attr(node, 'Update');
  if (name === null) return null;
  return { name, version: attr(node, 'Version'), versionOverride: attr(node, 'VersionOverride'), privateAll: (attr(node, 'PrivateAssets') ?? '').toLowerCase() === 'all' };
}

export function readMsbuild(text: string): MsbuildFile {
  const project = reader.read(text, 'Project');
  const properties = new Map<string, string>();
  for (const group of nodes(project['PropertyGroup'])) {
    for (const [k, v] of Object.entries(group)) if (!k.startsWith('@') && typeof v === 'string' && v.trim() !== '') properties.set(k, v.trim());
  }
  const packageVersions = new Map<string, string>();
  for (const pv of items(project, 'PackageVersion')) {
    const name = attr(pv, 'Include') ?? attr(pv, 'Update');
    const version = attr(pv, 'Version');
    if (name !== null && version !== null) packageVersions.set(name.toLowerCase(), version);
  }
  return {
    packageRefs: items(project, 'PackageReference').map(ref).filter((r): r is PackageRef => r !== null),
    projectRefs: items(project, 'ProjectReference').map((p) => attr(p, 'Include')).filter((p): p is string => p !== null),
    packageVersions,
    globalRefs: items(project, 'GlobalPackageReference').map(ref).filter((r): r is PackageRef => r !== null),
    properties,
  };
}

/** `packages.config`: `<package id version targetFramework developmentDependency/>`. */
export function readPackagesConfig(text: string): { name: string; version: string; dev: boolean }[] {
  const doc = reader.read(text, 'packages');
  return nodes(doc['package']).flatMap((p) => {
    const name = attr(p, 'id');
    const version = attr(p, 'version');
    return name === null || version === null ? [] : [{ name, version, dev: attr(p, 'developmentDependency') === 'true' }];
  });
}

/** `$(Name)` replaced from `properties` (a few rounds); null when something stays unknown. */
export function expand(value: string, properties: ReadonlyMap<string, string>): string | null {
  let out = value;
  for (let round = 0; round < 5 && out.includes('$('); round++) out = out.replace(/\$\(([A-Za-z_][\w.-]*)\)/g, (m, name: string) => properties.get(name) ?? m);
  return out.includes('$(') ? null : out;
}

/**
 * The version a project packs and reports as: MSBuild's `PackageVersion` property, else
 * `Version`, else `VersionPrefix` with `-VersionSuffix` when set (the .NET SDK's defaults
 * chain); null when none is set, when a property stays unknown, or when it is no plain version
 * (a computed expression).
 */
export function declaredVersion(properties: ReadonlyMap<string, string>): string | null {
  const prefix = properties.get('VersionPrefix');
  const suffix = properties.get('VersionSuffix');
  const raw = properties.get('PackageVersion') ?? properties.get('Version') ?? (prefix === undefined ? undefined : suffix === undefined ? prefix : `${prefix}-${suffix}`);
  const version = raw === undefined ? null : expand(raw, properties);
  return version !== null && /^\d+(\.\d+){0,3}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(version) ? version : null;
}

/**
 * The version a requirement pins: a plain version (`1.2.3`, NuGet's "at least", restored as
 * that version when it exists) or an exact range `[1.2.3]`; null for floating versions and real
 * ranges (`1.*`, `[1.0,2.0)`), which stay declarations.
 */
export function pinnedVersion(spec: string): string | null {
  const s = spec.trim();
  const exact = /^\[\s*([^,\s\]]+)\s*\]$/.exec(s);
  if (exact) return exact[1] ?? null;
  return /^\d+(\.\d+){0,3}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(s) ? s : null;
}
