/**
 * NTIA's "supplier name": each registry's reader names who supplies a package (a person or an
 * organization, as that registry defines it), and the documents carry it — SPDX `supplier`
 * ("Organization: X", "Person: X (email)"), CycloneDX `supplier` — NOASSERTION only when none is known.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/sbom/analyze.js';
import { crateMetadata } from '../../src/ecosystems/cargo/registry.js';
import { podspecMetadata } from '../../src/ecosystems/cocoapods/registry.js';
import { composerMetadata } from '../../src/ecosystems/composer/registry.js';
import { rubygemsMetadata } from '../../src/ecosystems/gem/registry.js';
import { goModuleMetadata, moduleOwner } from '../../src/ecosystems/golang/registry.js';
import { hexMetadata } from '../../src/ecosystems/hex/registry.js';
import { parsePom } from '../../src/ecosystems/maven/parse-pom.js';
import { pomMetadata } from '../../src/ecosystems/maven/registry.js';
import { nugetMetadata } from '../../src/ecosystems/nuget/registry.js';
import { pubMetadata } from '../../src/ecosystems/pub/registry.js';
import { pypiMetadata } from '../../src/ecosystems/pypi/registry.js';
import { RegistryEnricher } from '../../src/sbom/enrich.js';
import { EMPTY_METADATA, metadataFromManifest, type PackageMetadata } from '../../src/model/metadata.js';
import { SMALL_NPM } from '../helpers/fixtures.js';

const person = (party: string) => ({ kind: 'person', party });
const organization = (party: string) => ({ kind: 'organization', party });

describe('each registry’s supplier', () => {
  it('npm: the author, else the first maintainer', () => {
    expect(metadataFromManifest({ author: { name: 'Ada', email: 'ada@example.test' }, maintainers: [{ name: 'bob' }] }).supplier).toEqual(person('Ada <ada@example.test>'));
    expect(metadataFromManifest({ maintainers: [{ name: 'bob', email: 'bob@example.test' }] }).supplier).toEqual(person('bob <bob@example.test>'));
    expect(metadataFromManifest({ name: 'x' }).supplier).toBeNull();
  });

  it('PyPI: the author, else the maintainer', () => {
    expect(pypiMetadata({ info: { author: 'Ada', author_email: 'ada@example.test' } }).supplier).toEqual(person('Ada <ada@example.test>'));
    expect(pypiMetadata({ info: { maintainer: '', maintainer_email: 'Bob <bob@example.test>' } }).supplier).toEqual(person('Bob <bob@example.test>'));
    expect(pypiMetadata({ info: {} }).supplier).toBeNull();
  });

  it('crates.io: who published the version', () => {
    expect(crateMetadata({ published_by: { login: 'dtolnay', name: 'David Tolnay', url: 'https://github.com/dtolnay' } }, {}).supplier).toEqual(person('David Tolnay (https://github.com/dtolnay)'));
    expect(crateMetadata({ published_by: { login: 'ghost' } }, {}).supplier).toEqual(person('ghost'));
    expect(crateMetadata({}, {}).supplier).toBeNull();
  });

  it('Maven: the groupId (the organization publishing under it), else the parent’s', () => {
    const pom = (body: string) => parsePom(`<project><modelVersion>4.0.0</modelVersion>${body}<artifactId>a</artifactId><version>1</version></project>`);
    expect(pomMetadata(pom('<groupId>org.apache.commons</groupId>'), []).supplier).toEqual(organization('org.apache.commons'));
    expect(pomMetadata(pom('<parent><groupId>com.google.guava</groupId><artifactId>p</artifactId><version>1</version></parent>'), []).supplier).toEqual(organization('com.google.guava'));
  });

  it('NuGet: the first of the authors (nuget.org profiles, companies as often as people)', () => {
    expect(nugetMetadata({ authors: 'Microsoft, Contoso' }).supplier).toEqual(organization('Microsoft'));
    expect(nugetMetadata({ authors: ['James Newton-King', 'Contoso'] }).supplier).toEqual(organization('James Newton-King'));
    expect(nugetMetadata({}).supplier).toBeNull();
  });

  it('RubyGems and CocoaPods: the first author', () => {
    expect(rubygemsMetadata({ authors: 'Mike Dalessio, Aaron Patterson' }).supplier).toEqual(person('Mike Dalessio'));
    expect(podspecMetadata({ authors: { 'Alamofire Software Foundation': 'info@alamofire.org' } }).supplier).toEqual(person('Alamofire Software Foundation <info@alamofire.org>'));
  });

  it('Packagist: the vendor namespace', () => {
    expect(composerMetadata({ name: 'symfony/console', authors: [{ name: 'Fabien Potencier' }] }).supplier).toEqual(organization('symfony'));
  });

  it('pub: the verified publisher, else the author', () => {
    expect(pubMetadata({ pubspec: { author: 'Someone' } }, { tags: ['publisher:dart.dev', 'license:bsd-3-clause'] }).supplier).toEqual(organization('dart.dev'));
    expect(pubMetadata({ pubspec: { authors: ['Someone <s@example.test>'] } }, { tags: [] }).supplier).toEqual(person('Someone <s@example.test>'));
    expect(pubMetadata({ pubspec: {} }, null).supplier).toBeNull();
  });

  it('Hex: the first owner, else the first listed maintainer', () => {
    expect(hexMetadata({ owners: [{ username: 'michalmuskala', email: 'm@example.test' }], meta: {} }, '1.0.0').supplier).toEqual(person('michalmuskala <m@example.test>'));
    expect(hexMetadata({ meta: { maintainers: ['José Valim'] } }, '1.0.0').supplier).toEqual(person('José Valim'));
  });

  it('Go: the account on a code host, else the host of the import path', () => {
    expect(moduleOwner('github.com/spf13/cobra')).toBe('github.com/spf13');
    expect(moduleOwner('go.uber.org/zap')).toBe('go.uber.org');
    expect(moduleOwner('golang.org/x/text')).toBe('golang.org');
    expect(moduleOwner('example/local')).toBeNull();
    expect(goModuleMetadata({}, null, 'github.com/spf13/cobra').supplier).toEqual(organization('github.com/spf13'));
  });
});

interface Json {
  [key: string]: unknown;
}

describe('suppliers in the documents', () => {
  // Registry answers by package name: an organization, a person with an email, one with a link, and none.
  const answers: Record<string, PackageMetadata> = {
    express: { ...EMPTY_METADATA, supplier: { kind: 'organization', party: 'OpenJS Foundation' } },
    chalk: { ...EMPTY_METADATA, supplier: { kind: 'person', party: 'Sindre Sorhus <sindresorhus@gmail.com> (https://sindresorhus.com)' } },
    accepts: { ...EMPTY_METADATA, supplier: { kind: 'person', party: 'Douglas Wilson' } },
  };
  const registry = () => new RegistryEnricher(new Map([['npm', { fetch: (name: string) => Promise.resolve(answers[name] ?? EMPTY_METADATA) }]]), null);

  it('SPDX: Organization: name, Person: name (email); NOASSERTION where the registry names none', async () => {
    const doc = JSON.parse((await analyze(SMALL_NPM(), 'spdx', { registry: registry() })).document) as { packages: Json[]; creationInfo: { creators: string[] } };
    const supplierOf = (name: string) => doc.packages.find((p) => p['name'] === name)?.['supplier'];
    expect(supplierOf('express')).toBe('Organization: OpenJS Foundation');
    expect(supplierOf('chalk')).toBe('Person: Sindre Sorhus (sindresorhus@gmail.com)');
    expect(supplierOf('accepts')).toBe('Person: Douglas Wilson');
    expect(supplierOf('debug')).toBe('NOASSERTION');
    // The document's author (NTIA) is the tool that wrote it.
    expect(doc.creationInfo.creators).toEqual([expect.stringMatching(/^Tool: pkgscope-/)]);
  });

  it('CycloneDX: an organizational entity, a person as its own contact', async () => {
    const bom = JSON.parse((await analyze(SMALL_NPM(), 'cyclonedx', { registry: registry() })).document) as { components: Json[]; metadata: Json };
    const supplierOf = (name: string) => bom.components.find((c) => c['name'] === name)?.['supplier'];
    expect(supplierOf('express')).toEqual({ name: 'OpenJS Foundation' });
    expect(supplierOf('chalk')).toEqual({ name: 'Sindre Sorhus', url: ['https://sindresorhus.com'], contact: [{ name: 'Sindre Sorhus', email: 'sindresorhus@gmail.com' }] });
    expect(supplierOf('debug')).toBeUndefined();
    // The subject (a local project) has no registry supplier; pkgscope is the document's tool, not its author.
    expect(bom.metadata['supplier']).toBeUndefined();
    expect(bom.metadata['authors']).toBeUndefined();
    expect(bom.metadata['tools']).toEqual({ components: [expect.objectContaining({ name: 'pkgscope' })] });
  });
});
