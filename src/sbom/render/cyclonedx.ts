// The library's parts by their own entry points: its index also loads its validators (and Ajv),
// which this service does not use (see validate/cyclonedx.ts).
import * as ContribBom from '@cyclonedx/cyclonedx-library/Contrib/Bom';
import * as Enums from '@cyclonedx/cyclonedx-library/Enums';
import * as Models from '@cyclonedx/cyclonedx-library/Models';
import * as Serialize from '@cyclonedx/cyclonedx-library/Serialize';
import * as Spec from '@cyclonedx/cyclonedx-library/Spec';
import type { Person } from './fit.js';
import { componentFacts, evidenceProperties, type ComponentFacts, type RenderInput, type SuppliedBy } from './input.js';
import { writeJson, type BoundedOutput } from './output.js';
import { SERVICE_VERSION } from '../../version.js';
import { lazily } from '../../model/lazy-require.js';
import { cycloneDxVulnerabilities } from '../../advisories/render/cyclonedx.js';
import { isHashContent } from '../validate/cyclonedx-runtime.cjs';


/** `@scope/name` → group `@scope`, name `name`: npm's scope is the CycloneDX group. */
function splitName(ecosystem: string, name: string): { group: string | null; name: string } {
  const match = ecosystem === 'npm' ? /^(@[^/]+)\/(.+)$/.exec(name) : null;
  return match?.[1] && match[2] ? { group: match[1], name: match[2] } : { group: null, name };
}

/** Facts rendered under names of their own above. */
const RENDERED_FACTS = new Set(['bundled', 'deprecated']);
const NPM_FACTS = new Set(['os', 'cpu']);

const SCOPES: Readonly<Record<Exclude<ComponentFacts['scope'], 'unknown'>, Enums.ComponentScope>> = {
  required: Enums.ComponentScope.Required,
  optional: Enums.ComponentScope.Optional,
  // Development dependencies are not part of what ships.
  dev: Enums.ComponentScope.Excluded,
};

/**
 * An occurrence's ref as a bom-ref: `%` written `%25`, so that no ref holds `%3A`, `%2F` or `%40`
 * (cdx-validate takes those for a purl encoded twice and fails the document; yarn's `npm%3A` and
 * Cargo's `branch=a%2Fb` sources are in refs).
 */
export function bomRefOf(ref: string): string {
  return ref.includes('%') ? ref.replace(/%/g, '%25') : ref;
}

function component(facts: ComponentFacts): Models.Component {
  const o = facts.occurrence;
  const { group, name } = splitName(o.ecosystem, facts.name);
  const c = new Models.Component(
    facts.isRoot ? Enums.ComponentType.Application : Enums.ComponentType.Library,
    name,
    { bomRef: bomRefOf(o.ref) },
  );
  if (group !== null) c.group = group;
  if (facts.version !== null) c.version = facts.version;
  if (facts.purl !== null) c.purl = facts.purl;
  if (!facts.isRoot && facts.scope !== 'unknown') c.scope = SCOPES[facts.scope];
  if (facts.description !== null) c.description = facts.description;
  for (const sum of facts.checksums) c.hashes.set(Enums.HashAlgorithm[sum.algorithm], sum.hex);
  if (facts.license?.kind === 'expression') c.licenses.add(new Models.LicenseExpression(facts.license.expression));
  if (facts.license?.kind === 'named') c.licenses.add(new Models.NamedLicense(facts.license.name));
  const refs: [Enums.ExternalReferenceType, string | null, string?][] = [
    [Enums.ExternalReferenceType.Website, facts.homepage],
    [Enums.ExternalReferenceType.VCS, facts.repository],
    [Enums.ExternalReferenceType.Distribution, facts.download],
    // A contact has no URL in CycloneDX: the author's page is a reference of the component.
    [Enums.ExternalReferenceType.Other, facts.author?.url ?? null, 'author'],
  ];
  for (const [type, url, comment] of refs) if (url !== null) c.externalReferences.add(new Models.ExternalReference(url, type, { comment }));
  const npm = o.ecosystem === 'npm';
  const props: [string, string | null][] = [
    ['cdx:npm:package:path', npm && o.installPath !== '' ? o.installPath : null],
    ['cdx:npm:package:development', npm && o.dev ? 'true' : null],
    ['cdx:npm:package:bundled', npm ? (o.facts['bundled'] ?? null) : null],
    ['service:ecosystem', o.ecosystem],
    ['service:development', !npm && o.dev ? 'true' : null],
    ['service:lockfile', o.lockfile],
    ['service:source', o.source],
    ['service:alias', o.alias],
    ['service:optional', o.optional ? 'true' : null],
    ['service:peer', o.peer ? 'true' : null],
    ['service:resolved', o.source === 'registry' ? null : o.resolved],
    ['service:deprecated', facts.deprecated],
  ];
  // Recorded facts as service properties: npm's platform restrictions (its other facts are the
  // parsers' working notes), every fact of the other ecosystems (Go's replaced module, …).
  for (const [key, value] of Object.entries(o.facts)) {
    if (npm ? NPM_FACTS.has(key) : !RENDERED_FACTS.has(key)) props.push([`service:${key}`, value]);
  }
  for (const [key, value] of props) if (value !== null) c.properties.add(new Models.Property(key, value));
  return c;
}

/**
 * The document's subject (`metadata.component`): the uploaded project, i.e. the root nearest the
 * top of the upload (the first such). Other roots (workspace members, more projects) stay
 * components of type application.
 */
function subjectOf(facts: readonly ComponentFacts[]): ComponentFacts | null {
  let best: ComponentFacts | null = null;
  let bestDepth = Infinity;
  for (const f of facts) {
    if (!f.isRoot) continue;
    const depth = f.occurrence.lockfile.split('/').length + (f.occurrence.installPath === '' ? 0 : f.occurrence.installPath.split('/').length);
    if (depth < bestDepth) {
      best = f;
      bestDepth = depth;
    }
  }
  return best;
}

/** An author as an organizational contact (CycloneDX 1.6+ `authors`, replacing `author`); null with neither name nor email. */
function contact(author: Person | null): { name?: string; email?: string } | null {
  if (author === null || (author.name === null && author.email === null)) return null;
  return { ...(author.name === null ? {} : { name: author.name }), ...(author.email === null ? {} : { email: author.email }) };
}

interface Entity {
  name: string;
  url?: string[];
  contact?: { name?: string; email?: string }[];
}

/**
 * A supplier as CycloneDX's organizational entity: an organization by its name; a person as an
 * entity of that name with the person as its contact (CycloneDX has no person supplier).
 */
function entity(supplier: SuppliedBy | null): Entity | null {
  const name = supplier?.name ?? supplier?.email ?? null;
  if (supplier === null || name === null) return null;
  const person = supplier.kind === 'person' ? contact(supplier) : null;
  return {
    name,
    ...(supplier.url === null ? {} : { url: [supplier.url] }),
    ...(person !== null ? { contact: [person] } : supplier.email === null ? {} : { contact: [{ email: supplier.email }] }),
  };
}

/** CycloneDX's date-time without milliseconds: some consumers (cdxgen's SPDX 3 converter) refuse them. */
function wholeSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

type SpecOf = typeof Spec.Spec1dot7;

/**
 * The library's specification, answering as it does but for the check of a hash's digits, which
 * its normalizer runs on every hash: the library's pattern (five anchored alternatives) scans a
 * 128-digit SHA-512 once per shorter length before it matches, about 4 % of a small analysis.
 * The same verdict (hex digits, of one of the five lengths) comes from the length and one scan,
 * as the validator's runtime decides it. The library's specification keeps its state in private
 * fields, so its members are bound to it rather than inherited.
 */
export function withLinearHashCheck(spec: SpecOf): SpecOf {
  const members: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(Object.getOwnPropertyDescriptors(Object.getPrototypeOf(spec) as object))) {
    if (name === 'constructor') continue;
    // The specification is frozen: its getters' answers are read once.
    if (member.get !== undefined) members[name] = member.get.call(spec);
    else if (typeof member.value === 'function') members[name] = (member.value as (...args: unknown[]) => unknown).bind(spec);
  }
  members['supportsHashValue'] = (value: unknown): boolean => typeof value === 'string' && isHashContent(value);
  return Object.freeze(members) as unknown as SpecOf;
}

/**
 * The library's JSON normalizer of a whole BOM, made once per process with each of the
 * normalizers it delegates to made once too. The library's factory makes a new normalizer for
 * every item it normalizes (a component's hashes, licenses, references…), and they hold nothing
 * but the factory: in a small analysis, their construction was a tenth of the rendering.
 */
const bomNormalizer = lazily(() => {
  const factory = new Serialize.JSON.Normalize.Factory(withLinearHashCheck(Spec.Spec1dot7));
  const makers = factory as unknown as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(Serialize.JSON.Normalize.Factory.prototype)) {
    const make = makers[name];
    if (!name.startsWith('makeFor') || typeof make !== 'function') continue;
    let made: unknown;
    makers[name] = () => (made ??= (make as () => unknown).call(factory));
  }
  return factory.makeForBom();
});

type NormalizedDependency = Serialize.JSON.Types.Normalized.Dependency;

/** A dependency entry stating its dependencies, none included (`dependsOn` last, as a copy spread would put it). */
function withDependsOn(d: NormalizedDependency): NormalizedDependency {
  (d as { dependsOn?: NormalizedDependency['dependsOn'] }).dependsOn ??= [];
  return d;
}

/**
 * CycloneDX 1.7 JSON, built with the CycloneDX library and written under the size bound.
 * Returns the value written (the validator checks it instead of parsing the text again).
 */
export function renderCycloneDx(input: RenderInput, out: BoundedOutput): object {
  // Built apart: the library's model of the BOM (a tenth of a large analysis's heap) is left
  // behind before the text is written.
  const document = cycloneDxDocument(input);
  writeJson(out, document);
  return document;
}

/** The document as plain data, normalized by the CycloneDX library. */
function cycloneDxDocument(input: RenderInput): object {
  const bom = new Models.Bom();
  bom.serialNumber = ContribBom.Utils.randomSerialNumber();
  bom.metadata.timestamp = input.generatedAt;
  bom.metadata.tools.components.add(
    new Models.Component(Enums.ComponentType.Application, 'pkgscope', { version: SERVICE_VERSION }),
  );
  const components = new Map<string, Models.Component>();
  const { components: facts, uploadRoot, leftOut } = componentFacts(input);
  const subject = subjectOf(facts);
  for (const f of facts) {
    const c = component(f);
    components.set(f.occurrence.ref, c);
    if (f === subject) bom.metadata.component = c;
    else bom.components.add(c);
  }
  for (const f of facts) {
    const c = components.get(f.occurrence.ref);
    for (const { ref } of f.occurrence.dependencies) {
      const target = components.get(ref);
      if (c && target) c.dependencies.add(target.bomRef);
    }
  }
  // The subject depends on every other root too: a graph with roots of its own beside the
  // subject's is one Dependency-Track (and cdx-validate) takes for dangling.
  const subjectComponent = subject === null ? undefined : components.get(subject.occurrence.ref);
  for (const f of facts) {
    const root = components.get(f.occurrence.ref);
    if (f.isRoot && f !== subject && root && subjectComponent) subjectComponent.dependencies.add(root.bomRef);
  }
  if (uploadRoot !== null) {
    // No project root in the upload: the subject is the upload, depending on the top-level components.
    const upload = new Models.Component(Enums.ComponentType.Application, uploadRoot.name, { bomRef: uploadRoot.ref });
    for (const ref of uploadRoot.dependsOn) {
      const target = components.get(ref);
      if (target) upload.dependencies.add(target.bomRef);
    }
    bom.metadata.component = upload;
  }
  const normalized = bomNormalizer().normalize(bom, {});
  const authors = new Map(
    facts.flatMap((f) => {
      const author = contact(f.author);
      return author === null ? [] : [[bomRefOf(f.occurrence.ref), author] as const];
    }),
  );
  // The library (10.x) writes only the deprecated `author`; 1.6+ documents carry `authors`. The
  // normalized components are this render's own: the member is added to each, not to a copy.
  type WithAuthors = Serialize.JSON.Types.Normalized.Component & { authors?: { name?: string; email?: string }[] };
  const suppliers = new Map(
    facts.flatMap((f) => {
      const supplier = entity(f.supplier);
      return supplier === null ? [] : [[bomRefOf(f.occurrence.ref), supplier] as const];
    }),
  );
  const withAuthors = (c: WithAuthors): WithAuthors => {
    const ref = c['bom-ref'];
    const author = ref === undefined ? undefined : authors.get(ref);
    if (author !== undefined) c.authors = [author];
    const supplier = ref === undefined ? undefined : suppliers.get(ref);
    if (supplier !== undefined) (c as WithAuthors & { supplier?: Entity }).supplier = supplier;
    return c;
  };
  const metadataComponent = normalized.metadata?.component;
  const subjectSupplier = subject === null ? undefined : suppliers.get(bomRefOf(subject.occurrence.ref));
  // The document's own authorship: pkgscope wrote it, and is in `metadata.tools` (CycloneDX's
  // `authors` are the people who wrote a BOM by hand). `metadata.supplier` is the supplier of
  // the subject, when its registry names one.
  const metadata = normalized.metadata && {
    ...normalized.metadata,
    timestamp: wholeSeconds(input.generatedAt),
    ...(metadataComponent ? { component: withAuthors(metadataComponent) } : {}),
    ...(subjectSupplier === undefined ? {} : { supplier: subjectSupplier }),
  };
  return {
    ...normalized,
    ...(metadata ? { metadata } : {}),
    ...(normalized.components ? { components: normalized.components.map(withAuthors) } : {}),
    // Every component's entry states its dependencies, none included: strict consumers read a
    // missing `dependsOn` as an unknown one (cdx-validate --strict fails the document).
    // (Set on the normalized entries themselves, this render's own: a copy of each cost a
    // collection's worth of garbage in a lockfile of 50,000 entries.)
    ...(normalized.dependencies ? { dependencies: normalized.dependencies.map(withDependsOn) } : {}),
    compositions: [
      {
        aggregate: input.evidence.graphComplete ? 'complete' : 'incomplete',
        assemblies: facts.map((f) => bomRefOf(f.occurrence.ref)),
      },
    ],
    // Advisories matched to the inventory (issue #33): only when they were asked for.
    ...(input.vulnerabilities === undefined
      ? {}
      : {
          vulnerabilities: cycloneDxVulnerabilities(
            input.vulnerabilities,
            new Map(facts.map((f) => [f.occurrence.ref, { name: f.name, version: f.version }])),
            bomRefOf,
            [...facts.map((f) => bomRefOf(f.occurrence.ref)), ...(uploadRoot === null ? [] : [uploadRoot.ref])],
          ),
        }),
    properties: evidenceProperties(input, leftOut),
  };
}
