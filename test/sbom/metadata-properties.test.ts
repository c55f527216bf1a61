import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/sbom/analyze.js';
import { crateMetadata } from '../../src/ecosystems/cargo/registry.js';
import { podspecMetadata } from '../../src/ecosystems/cocoapods/registry.js';
import { composerMetadata } from '../../src/ecosystems/composer/registry.js';
import { rubygemsMetadata } from '../../src/ecosystems/gem/registry.js';
import { goModDeprecation, goModuleMetadata } from '../../src/ecosystems/golang/registry.js';
import { hexMetadata } from '../../src/ecosystems/hex/registry.js';
import { pomMetadata } from '../../src/ecosystems/maven/registry.js';
import { parsePom } from '../../src/ecosystems/maven/parse-pom.js';
import { JvmFileError } from '../../src/ecosystems/maven/xml.js';
import { nugetMetadata } from '../../src/ecosystems/nuget/registry.js';
import { pubMetadata } from '../../src/ecosystems/pub/registry.js';
import { pypiMetadata } from '../../src/ecosystems/pypi/registry.js';
import type { Enricher } from '../../src/model/enrich-types.js';
import { coordinateKey, EMPTY_METADATA, metadataFromManifest, type PackageMetadata } from '../../src/model/metadata.js';
import { isEmail, isIriReference, isSpdxDownloadLocation, isSpdxUrl } from '../../src/sbom/render/formats.js';
import { cycloneDxProblems } from '../../src/sbom/validate/cyclonedx.js';
import { spdxProblems } from '../../src/sbom/validate/spdx.js';
import type { InputFile } from '../../src/model/types.js';
import { officialSpdxSchema } from '../helpers/spdx-schema.js';

/**
 * Property: whatever a registry's document holds in the fields its reader takes (strings, objects,
 * arrays, numbers; emails, links and licenses good and bad; control characters, unpaired
 * surrogates, emoji), and whatever the lockfile records as a package's download and license, the
 * analysis writes a CycloneDX and an SPDX document that the production validators accept.
 * Seeded, so a failure replays.
 */

const RUNS = 60;

/** Values registries are known to hold, well-formed or not. */
const TRICKY = [
  'Javier Blanco <http://jbgutierrez.info>',
  'Name <not-an-email>',
  'Jane Doe <jane@example.com> (https://jane.example.com)',
  'Jane Doe (jane@example.com)',
  'a@b',
  'jane@example.com',
  '<>',
  '()',
  'Zoë 🦄 <zoe@例え.jp>',
  'git@github.com:x/y.git',
  'git+ssh://git@github.com:x/y.git',
  'git+https://github.com/x/y.git',
  'github:owner/repo',
  'gitlab:owner/repo',
  'owner/repo',
  'www.example.com',
  'https://example.com/a b',
  'https://example.com/%zz',
  'https://例え.jp/ü',
  'http://127.0.0.1:4873/x/-/x-1.0.0.tgz',
  'https://registry.example.org/x/-/x-1.0.0.tgz',
  'javascript:alert(1)',
  'mailto:a@example.com',
  'MIT',
  'mit',
  'Apache 2.0',
  '(MIT OR Apache-2.0)',
  'MIT AND (ISC OR',
  'GPL-2.0+',
  'GPL-2.0-or-later WITH Classpath-exception-2.0',
  'UNLICENSED',
  'SEE LICENSE IN LICENSE.md',
  'LicenseRef-Proprietary',
  'DocumentRef-x:LicenseRef-y',
  'BSD',
  'Public Domain',
  'NOASSERTION',
  'NONE',
  'License :: OSI Approved :: MIT License',
  'license:mit',
  'license:bsd-3-clause',
  '1.0.0',
  '${project.url}',
  '',
  ' ',
  '\u0000',
  'a\nb',
  'a\u2028b',
  '\ud800',
  '\uffff',
  'x'.repeat(1100),
];

const text = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  { weight: 1, arbitrary: fc.emailAddress() },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...TRICKY), fc.constantFrom(' <', ' (', ' ', ''), fc.constantFrom(...TRICKY), fc.constantFrom('>', ')', '')).map((parts) => parts.join('')) },
);

const person = fc.oneof(
  text,
  fc.record({ name: text, email: text, url: text }, { requiredKeys: [] }),
  fc.record({ name: text, mail: text, web: text }, { requiredKeys: [] }),
);

/** A field's value: usually its expected shape, sometimes anything at all. */
function field<T>(shaped: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 5, arbitrary: shaped }, { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.array(text, { maxLength: 3 }), fc.anything({ maxDepth: 2 })) });
}

const license = fc.oneof(text, fc.record({ type: text, url: text }, { requiredKeys: [] }), fc.array(fc.oneof(text, fc.record({ type: text, url: text }, { requiredKeys: [] })), { maxLength: 3 }));
const list = (item: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => field(fc.array(item, { maxLength: 3 }));
const doc = (fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> => fc.record(fields, { requiredKeys: [] });
const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

const xml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Each registry: its documents, through the same pure reader its client uses. */
const REGISTRIES: Record<string, fc.Arbitrary<PackageMetadata>> = {
  npm: doc({
    license: field(license),
    licenses: field(license),
    author: field(person),
    maintainers: list(person),
    contributors: list(person),
    repository: field(fc.oneof(text, fc.record({ type: text, url: text, directory: text }, { requiredKeys: [] }))),
    homepage: field(text),
    bugs: field(fc.oneof(text, fc.record({ url: text, email: text }, { requiredKeys: [] }))),
    funding: field(fc.oneof(text, fc.record({ type: text, url: text }, { requiredKeys: [] }))),
    description: field(text),
    deprecated: field(text),
  }).map(metadataFromManifest),
  pypi: doc({
    license_expression: field(text),
    license: field(text),
    classifiers: list(text),
    summary: field(text),
    home_page: field(text),
    project_urls: field(fc.dictionary(fc.constantFrom('Homepage', 'home', 'Source', 'Repository', 'Code', 'GitHub', 'Docs'), text)),
    author: field(text),
    author_email: field(text),
    yanked: field(fc.boolean()),
    yanked_reason: field(text),
  }).map((info) => pypiMetadata({ info })),
  crates: fc
    .tuple(doc({ license: field(text), description: field(text), homepage: field(text), repository: field(text), yanked: field(fc.boolean()), yank_message: field(text) }), doc({ description: field(text), homepage: field(text), repository: field(text) }))
    .map(([version, crate]) => crateMetadata(version, ['description', 'homepage', 'repository'].some((k) => k in version) ? version : crate)),
  rubygems: doc({
    licenses: field(fc.oneof(text, fc.array(text, { maxLength: 3 }))),
    info: field(text),
    summary: field(text),
    description: field(text),
    homepage_uri: field(text),
    source_code_uri: field(text),
    metadata: field(doc({ homepage_uri: field(text), source_code_uri: field(text) })),
    authors: field(text),
    yanked: field(fc.boolean()),
  }).map(rubygemsMetadata),
  nuget: doc({
    licenseExpression: field(text),
    licenseUrl: field(text),
    description: field(text),
    summary: field(text),
    projectUrl: field(text),
    authors: field(fc.oneof(text, fc.array(text, { maxLength: 3 }))),
    deprecation: field(doc({ message: field(text), reasons: list(text) })),
  }).map(nugetMetadata),
  packagist: doc({
    license: field(fc.oneof(text, fc.array(text, { maxLength: 3 }))),
    description: field(text),
    homepage: field(text),
    source: field(doc({ url: field(text), type: field(text) })),
    support: field(doc({ source: field(text) })),
    authors: list(doc({ name: field(text), email: field(text), homepage: field(text) })),
    abandoned: field(fc.oneof(fc.boolean(), text)),
  }).map(composerMetadata),
  pub: fc
    .tuple(doc({ pubspec: field(doc({ description: field(text), homepage: field(text), repository: field(text) })), retracted: field(fc.boolean()) }), field(doc({ tags: list(fc.oneof(text, text.map((t) => `license:${t}`))) })))
    .map(([version, score]) => pubMetadata(version, record(score))),
  hex: doc({
    meta: field(doc({ licenses: list(text), description: field(text), links: field(fc.dictionary(text, field(text))) })),
    html_url: field(text),
    retirements: field(fc.dictionary(fc.constantFrom('1.0.0', '2.0.0'), field(doc({ message: field(text), reason: field(text) })))),
  }).map((d) => hexMetadata(d, '1.0.0')),
  go: fc
    .tuple(doc({ Origin: field(doc({ URL: field(text), VCS: field(text) })) }), text, text)
    .map(([info, deprecated, rationale]) => goModuleMetadata(info, goModDeprecation(`// Deprecated: ${deprecated}\nmodule example.com/m\n\nretract v1.0.0 // ${rationale}\n`, 'v1.0.0'))),
  maven: fc
    .record({ name: text, description: text, url: text, scm: text, license: text, licenseUrl: text, developer: text, email: text })
    .map((p) => {
      const pom = `<project><artifactId>a</artifactId><name>${xml(p.name)}</name><description>${xml(p.description)}</description><url>${xml(p.url)}</url><scm><url>${xml(p.scm)}</url></scm><licenses><license><name>${xml(p.license)}</name><url>${xml(p.licenseUrl)}</url></license></licenses><developers><developer><name>${xml(p.developer)}</name><email>${xml(p.email)}</email></developer></developers></project>`;
      try {
        const parsed = parsePom(pom);
        return pomMetadata(parsed, parsed.licenses);
      } catch (error) {
        // A POM the reader refuses gives no facts (as mavenMetadata answers).
        if (error instanceof JvmFileError) return EMPTY_METADATA;
        throw error;
      }
    }),
  cocoapods: doc({
    license: field(fc.oneof(text, doc({ type: field(text), file: field(text), text: field(text) }))),
    summary: field(text),
    description: field(text),
    homepage: field(text),
    source: field(doc({ git: field(text), tag: field(text), http: field(text) })),
    authors: field(fc.oneof(text, fc.array(text, { maxLength: 3 }), fc.dictionary(text, text))),
    author: field(text),
    deprecated: field(fc.boolean()),
    deprecated_in_favor_of: field(text),
  }).map(podspecMetadata),
};

/** What a lockfile records of a package that reaches the documents: its download and its license. */
const lockEntry = fc.record({ resolved: fc.option(text, { nil: undefined }), license: fc.option(field(license), { nil: undefined }) }, { requiredKeys: [] });

function upload(entries: readonly Record<string, unknown>[]): InputFile[] {
  const names = entries.map((_, i) => `pkg${i}`);
  const packages: Record<string, unknown> = { '': { name: 'app', version: '1.0.0', dependencies: Object.fromEntries(names.map((n) => [n, '1.0.0'])) } };
  entries.forEach((entry, i) => {
    packages[`node_modules/pkg${i}`] = { version: '1.0.0', ...entry };
  });
  return [{ path: 'package-lock.json', content: JSON.stringify({ name: 'app', lockfileVersion: 3, packages }) }];
}

/** An enricher answering every coordinate with the given facts in turn (what registries answered). */
function answering(metadata: readonly PackageMetadata[]): Enricher {
  return {
    enrich(coordinates) {
      const answers = new Map(coordinates.map((c, i) => [coordinateKey(c.ecosystem, c.name, c.version), metadata[i % metadata.length] ?? EMPTY_METADATA]));
      return Promise.resolve({ metadata: answers, failed: [] });
    },
  };
}

type Json = Record<string, unknown>;

function assertCycloneDx(document: string): void {
  expect(cycloneDxProblems(document)).toEqual([]);
  const bom = JSON.parse(document) as Json;
  const components = [...((bom['components'] as Json[] | undefined) ?? []), ...[record(bom['metadata'])['component']].filter((c): c is Json => c !== undefined)];
  for (const c of components) {
    for (const a of (c['authors'] as Json[] | undefined) ?? []) if (a['email'] !== undefined) expect(isEmail(a['email'] as string)).toBe(true);
    for (const r of (c['externalReferences'] as Json[] | undefined) ?? []) expect(isIriReference(r['url'] as string), r['url'] as string).toBe(true);
  }
}

function assertSpdx(document: string): void {
  const spdx = JSON.parse(document) as Json;
  expect(spdxProblems(spdx)).toEqual({ schema: [], content: [] });
  expect(officialSpdxSchema(spdx), JSON.stringify(officialSpdxSchema.errors)).toBe(true);
  for (const p of spdx['packages'] as Json[]) {
    if (p['homepage'] !== undefined) expect(isSpdxUrl(p['homepage'] as string)).toBe(true);
    const location = p['downloadLocation'] as string;
    if (location !== 'NOASSERTION') expect(isSpdxDownloadLocation(location), location).toBe(true);
  }
}

describe('registry metadata of any shape always makes valid documents', () => {
  for (const [index, [ecosystem, metadata]] of Object.entries(REGISTRIES).entries()) {
    it(`${ecosystem}: ${RUNS} seeded documents render valid CycloneDX and SPDX`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(metadata, { minLength: 1, maxLength: 4 }), fc.array(lockEntry, { minLength: 1, maxLength: 4 }), async (answers, entries) => {
          const files = upload(entries);
          const registry = answering(answers);
          assertCycloneDx((await analyze(files, 'cyclonedx', { registry })).document);
          assertSpdx((await analyze(files, 'spdx', { registry })).document);
        }),
        { numRuns: RUNS, seed: 28_000 + index, endOnFailure: true },
      );
    });
  }
});
