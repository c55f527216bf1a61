import { childOf, isNode, JvmFileError, listOf, textOf, textsOf, xmlReader, type XmlNode } from './xml.js';

/**
 * A POM as written (https://maven.apache.org/pom.html), before inheritance and interpolation:
 * coordinates, parent, properties, dependencies, dependencyManagement, modules, and the profiles
 * active by default merged in (`<activeByDefault>true</activeByDefault>`; other activations depend
 * on the machine that builds, which an upload does not have). Metadata for enrichment: licenses,
 * name, description, url, scm url, developers.
 */

export interface Exclusion {
  readonly groupId: string;
  readonly artifactId: string;
}

export interface PomDependency {
  readonly groupId: string;
  readonly artifactId: string;
  readonly version: string | null;
  readonly type: string;
  readonly classifier: string | null;
  readonly scope: string | null;
  readonly optional: boolean;
  readonly exclusions: readonly Exclusion[];
}

export interface PomParent {
  readonly groupId: string;
  readonly artifactId: string;
  readonly version: string;
  /** null: the default `../pom.xml`; '' (an empty element): look the parent up in the repository only. */
  readonly relativePath: string | null;
}

export interface PomLicense {
  readonly name: string | null;
  readonly url: string | null;
}

/** `<distributionManagement><relocation>`: the artifact moved; an absent part keeps the original's. */
export interface PomRelocation {
  readonly groupId: string | null;
  readonly artifactId: string | null;
  readonly version: string | null;
  readonly message: string | null;
}

/** A `<repositories><repository>` the POM declares (the project's or an active-by-default profile's). */
export interface PomRepository {
  readonly id: string | null;
  readonly url: string;
}

export interface Pom {
  readonly groupId: string | null;
  readonly artifactId: string;
  readonly version: string | null;
  readonly packaging: string;
  readonly parent: PomParent | null;
  readonly properties: ReadonlyMap<string, string>;
  readonly dependencies: readonly PomDependency[];
  readonly dependencyManagement: readonly PomDependency[];
  readonly modules: readonly string[];
  readonly licenses: readonly PomLicense[];
  readonly name: string | null;
  readonly description: string | null;
  readonly url: string | null;
  readonly scmUrl: string | null;
  readonly developers: readonly string[];
  readonly relocation: PomRelocation | null;
  readonly repositories: readonly PomRepository[];
}

const reader = xmlReader(['dependency', 'module', 'exclusion', 'profile', 'license', 'developer', 'repository']);

function dependencyOf(node: XmlNode, where: string): PomDependency {
  const groupId = textOf(node, 'groupId');
  const artifactId = textOf(node, 'artifactId');
  if (groupId === null || artifactId === null) throw new JvmFileError('malformed', `a dependency in ${where} has no groupId or artifactId`);
  return {
    groupId,
    artifactId,
    version: textOf(node, 'version'),
    type: textOf(node, 'type') ?? 'jar',
    classifier: textOf(node, 'classifier'),
    scope: textOf(node, 'scope'),
    optional: textOf(node, 'optional') === 'true',
    exclusions: listOf(node, 'exclusions', 'exclusion').flatMap((e) => {
      const g = textOf(e, 'groupId');
      const a = textOf(e, 'artifactId');
      return g === null || a === null ? [] : [{ groupId: g, artifactId: a }];
    }),
  };
}

function propertiesOf(node: XmlNode | undefined, into: Map<string, string>): void {
  const props = childOf(node, 'properties');
  if (props === undefined) return;
  for (const [k, v] of Object.entries(props)) {
    if (typeof v === 'string') into.set(k, v);
    else if (isNode(v) && typeof v['#text'] === 'string') into.set(k, v['#text']);
  }
}

/** The build-affecting sections of the model or of one profile. */
function sectionsOf(
  node: XmlNode,
  where: string,
  into: { deps: PomDependency[]; managed: PomDependency[]; modules: string[]; properties: Map<string, string>; repositories: PomRepository[] },
): void {
  for (const d of listOf(node, 'dependencies', 'dependency')) into.deps.push(dependencyOf(d, where));
  for (const r of listOf(node, 'repositories', 'repository')) {
    const url = textOf(r, 'url');
    if (url !== null) into.repositories.push({ id: textOf(r, 'id'), url });
  }
  for (const d of listOf(childOf(node, 'dependencyManagement'), 'dependencies', 'dependency')) into.managed.push(dependencyOf(d, `${where} dependencyManagement`));
  into.modules.push(...textsOf(node, 'modules', 'module'));
  propertiesOf(node, into.properties);
}

function parentOf(project: XmlNode): PomParent | null {
  const p = childOf(project, 'parent');
  if (p === undefined) return null;
  const groupId = textOf(p, 'groupId');
  const artifactId = textOf(p, 'artifactId');
  const version = textOf(p, 'version');
  if (groupId === null || artifactId === null || version === null) throw new JvmFileError('malformed', '<parent> needs groupId, artifactId and version');
  const rel = p['relativePath'];
  // `<relativePath/>` parses as '' (lookup in the repository only); an absent element is the default.
  return { groupId, artifactId, version, relativePath: rel === undefined ? null : typeof rel === 'string' ? rel : null };
}

export function parsePom(text: string): Pom {
  const project = reader.read(text, 'project');
  const artifactId = textOf(project, 'artifactId');
  if (artifactId === null) throw new JvmFileError('malformed', '<project> has no artifactId');
  const sections = { deps: [] as PomDependency[], managed: [] as PomDependency[], modules: [] as string[], properties: new Map<string, string>(), repositories: [] as PomRepository[] };
  sectionsOf(project, 'the project', sections);
  for (const profile of listOf(project, 'profiles', 'profile')) {
    if (textOf(childOf(profile, 'activation'), 'activeByDefault') !== 'true') continue;
    sectionsOf(profile, `profile ${textOf(profile, 'id') ?? ''}`.trim(), sections);
  }
  return {
    groupId: textOf(project, 'groupId'),
    artifactId,
    version: textOf(project, 'version'),
    packaging: textOf(project, 'packaging') ?? 'jar',
    parent: parentOf(project),
    properties: sections.properties,
    dependencies: sections.deps,
    dependencyManagement: sections.managed,
    modules: sections.modules,
    licenses: listOf(project, 'licenses', 'license').map((l) => ({ name: textOf(l, 'name'), url: textOf(l, 'url') })),
    name: textOf(project, 'name'),
    description: textOf(project, 'description'),
    url: textOf(project, 'url'),
    scmUrl: textOf(childOf(project, 'scm'), 'url'),
    developers: listOf(project, 'developers', 'developer').flatMap((d) => {
      const name = textOf(d, 'name') ?? textOf(d, 'id');
      const email = textOf(d, 'email');
      if (name === null) return email === null ? [] : [email];
      return [email === null ? name : `${name} <${email}>`];
    }),
    relocation: relocationOf(project),
    repositories: sections.repositories,
  };
}

function relocationOf(project: XmlNode): PomRelocation | null {
  const node = childOf(childOf(project, 'distributionManagement'), 'relocation');
  if (node === undefined) return null;
  return { groupId: textOf(node, 'groupId'), artifactId: textOf(node, 'artifactId'), version: textOf(node, 'version'), message: textOf(node, 'message') };
}

/** A POM's licenses as one string: several are offered together, so they read as a choice (OR). */
export function licenseText(licenses: readonly PomLicense[]): string | null {
  const names = licenses.map((l) => l.name ?? l.url).filter((n): n is string => n !== null);
  return names.length <= 1 ? (names[0] ?? null) : `(${names.join(' OR ')})`;
}
