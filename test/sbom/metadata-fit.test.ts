import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryAnalysis } from '../../src/sbom/registry-analysis.js';
import { analyze } from '../../src/sbom/analyze.js';
import { metadataFromManifest } from '../../src/model/metadata.js';
import { fitHomepage, fitPerson, fitRepository, fitVersion, multiLine, oneLine } from '../../src/sbom/render/fit.js';
import { isEmail, isIriReference, isSpdxDownloadLocation, isSpdxUrl } from '../../src/sbom/render/formats.js';
import { cycloneDxProblems } from '../../src/sbom/validate/cyclonedx.js';
import { spdxProblems } from '../../src/sbom/validate/spdx.js';
import type { OutputFormat } from '../../src/model/types.js';
import { startFixtureRegistry, type FixtureRegistry } from '../helpers/registry.js';

type Json = Record<string, unknown>;

/** A minimal valid CycloneDX 1.7 document whose one component has `authors`. */
function bomWithContact(contact: Json): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.7',
    version: 1,
    components: [{ type: 'library', name: 'x', 'bom-ref': 'x', authors: [contact] }],
  });
}

describe('emails and links are kept exactly when the validators accept them', () => {
  const emails = ['jane@example.com', 'a@b', 'a@b.c', 'x@localhost', 'ü@例え.jp', '"a b"@example.org', 'a@[1.2.3.4]', 'not-an-email', 'http://jbgutierrez.info', 'a@-b.org', 'a@b..org', 'Jane <jane@example.com>'];
  it.each(emails)('%s: the normaliser says what the CycloneDX validator says', (email) => {
    expect(isEmail(email)).toBe(cycloneDxProblems(bomWithContact({ email })).length === 0);
  });

  it('holds links to RFC 3987 and SPDX URLs to the SPDX tools’ pattern', () => {
    expect(['https://github.com/x/y#readme', 'https://例え.jp/ü', 'git+ssh://git@github.com/x/y.git', '../relative', ''].map(isIriReference)).toEqual([true, true, true, true, true]);
    expect(['git@github.com:x/y.git', 'https://x.org/a b', 'https://x.org/%zz', 'http://x.org/a\\b', 'https://x.org/\u0000', 'https://x.org/\ud800'].map(isIriReference)).toEqual([false, false, false, false, false, false]);
    expect(isSpdxUrl('https://github.com/x/y')).toBe(true);
    expect(isSpdxUrl('https://例え.jp/ü')).toBe(false);
    expect(isSpdxDownloadLocation('https://registry.example.org/x/-/x-1.0.0.tgz')).toBe(true);
    expect(isSpdxDownloadLocation('git+ssh://git@github.com/x/y.git#abc')).toBe(true);
    // SPDX's tools want a domain name with a top-level domain: a registry on an address does not fit.
    expect(isSpdxDownloadLocation('http://127.0.0.1:4873/x/-/x-1.0.0.tgz')).toBe(false);
  });

  it('decides long hostile links in linear time', () => {
    // A quadratic pattern would take minutes here; no bound on the time, only that it answers.
    expect(isIriReference(`https://x.org/${'a'.repeat(200_000)} `)).toBe(false);
    expect(isSpdxDownloadLocation(`http://${'a'.repeat(100_000)}!`)).toBe(false);
    expect(isSpdxDownloadLocation(`http://${'a.'.repeat(50_000)}1`)).toBe(false);
  });
});

describe('authors as npm writes them', () => {
  it("path-parse's author: a URL in <…> is the author's URL, not an email", () => {
    expect(fitPerson('Javier Blanco <http://jbgutierrez.info>')).toEqual({ person: { name: 'Javier Blanco', email: null, url: 'http://jbgutierrez.info' }, leftOut: [] });
  });

  it('an email that is none is left out and counted', () => {
    expect(fitPerson('Name <not-an-email>')).toEqual({ person: { name: 'Name', email: null, url: null }, leftOut: ['author email'] });
    expect(fitPerson('<not-an-email>')).toEqual({ person: null, leftOut: ['author email'] });
  });

  it('keeps a real email and a (URL)', () => {
    expect(fitPerson('Jane Doe <jane@example.com> (https://jane.example.com)')).toEqual({
      person: { name: 'Jane Doe', email: 'jane@example.com', url: 'https://jane.example.com' },
      leftOut: [],
    });
    expect(fitPerson('Jane Doe (mailto:jane@example.com)').person).toEqual({ name: 'Jane Doe', email: 'jane@example.com', url: null });
    expect(fitPerson('Jane Doe <jane@example.com> (www.jane.example.com)')).toEqual({ person: { name: 'Jane Doe', email: 'jane@example.com', url: null }, leftOut: ['author URL'] });
  });

  it('keeps names as they are, unicode and parentheses included', () => {
    expect(fitPerson('Zoë 🦄 Ünïcødé <zoe@例え.jp>').person).toEqual({ name: 'Zoë 🦄 Ünïcødé', email: 'zoe@例え.jp', url: null });
    expect(fitPerson('Ada (ACME Inc.)').person).toEqual({ name: 'Ada (ACME Inc.)', email: null, url: null });
    expect(fitPerson('a@b').person).toEqual({ name: 'a@b', email: null, url: null });
    expect(fitPerson('jane@example.com').person).toEqual({ name: null, email: 'jane@example.com', url: null });
  });

  it('writes npm person objects in the person form, their URL kept', () => {
    const doc = metadataFromManifest({ author: { name: 'Ada', email: 'ada@example.com', url: 'https://ada.example.com' } });
    expect(doc.author).toBe('Ada <ada@example.com> (https://ada.example.com)');
    expect(metadataFromManifest({ author: { name: 'Old', mail: 'old@example.com', web: 'https://old.example.com' } }).author).toBe('Old <old@example.com> (https://old.example.com)');
  });
});

describe('other fields', () => {
  it('links: repository shorthands and scp-like addresses become URLs; a homepage must be a web page', () => {
    expect(fitRepository('github:owner/repo')).toBe('https://github.com/owner/repo');
    expect(fitRepository('git@github.com:x/y.git')).toBe('ssh://git@github.com/x/y.git');
    expect(fitRepository('git+ssh://git@github.com:x/y.git')).toBe('git+ssh://git@github.com/x/y.git');
    expect(fitRepository('javascript:alert(1)')).toBeNull();
    expect(fitHomepage('git@github.com:x/y.git')).toBeNull();
    expect(fitHomepage('www.example.com')).toBeNull();
    expect(fitHomepage('https://github.com/x/y#readme')).toBe('https://github.com/x/y#readme');
  });

  it('text: control characters go, line breaks stay only where text runs over lines', () => {
    expect(oneLine('a\u2028b\u0000c\ud800 \r\n d')).toBe('a bc d');
    expect(oneLine(' \u0007 ')).toBeNull();
    expect(multiLine('one\r\ntwo\u0000\u2029three')).toBe('one\ntwo\nthree');
    expect(fitVersion('1'.repeat(1025))).toBeNull();
    expect(fitVersion('1'.repeat(1024))).toBe('1'.repeat(1024));
  });
});

describe('documents carry what fits, and say what was left out', () => {
  let registry: FixtureRegistry;
  beforeAll(async () => {
    registry = await startFixtureRegistry({
      packages: {
        'path-parse': { versions: { '1.0.7': { license: 'MIT', author: 'Javier Blanco <http://jbgutierrez.info>', homepage: 'https://github.com/jbgutierrez/path-parse#readme', repository: { type: 'git', url: 'https://github.com/jbgutierrez/path-parse.git' } } } },
        noemail: { versions: { '1.0.0': { author: 'Name <not-an-email>', homepage: 'git@github.com:x/y.git', repository: 'github:owner/repo' } } },
        both: { versions: { '1.0.0': { author: 'Zoë 🦄 <zoe@example.com> (https://zoe.example.com)', license: { type: 'ISC', url: 'https://opensource.org/licenses/ISC' } } } },
        short: { versions: { '1.0.0': { author: { name: 'Shorty', email: 'a@b' } } } },
      },
    });
  });
  afterAll(() => registry.close());

  async function render(format: OutputFormat): Promise<Json> {
    const { registry: enricher } = await registryAnalysis({ cache: null, resolutionTimeoutMs: 10_000, npmOptions: await registry.npmOptions() });
    const names = { 'path-parse': '1.0.7', noemail: '1.0.0', both: '1.0.0', short: '1.0.0' };
    const packages: Json = { '': { name: 'app', version: '1.0.0', dependencies: names } };
    for (const [name, version] of Object.entries(names)) packages[`node_modules/${name}`] = { version };
    const files = [{ path: 'package-lock.json', content: JSON.stringify({ name: 'app', lockfileVersion: 3, packages }) }];
    const result = await analyze(files, format, { registry: enricher });
    return JSON.parse(result.document) as Json;
  }

  const notice = (properties: { name: string; value: string }[]): string => properties.find((p) => p.name === 'service:notice')?.value ?? '';

  it('CycloneDX: the author URL is a reference, emails only when valid', async () => {
    const bom = await render('cyclonedx');
    expect(cycloneDxProblems(JSON.stringify(bom))).toEqual([]);
    const byName = new Map((bom['components'] as Json[]).map((c) => [c['name'], c]));
    expect(byName.get('path-parse')).toMatchObject({
      authors: [{ name: 'Javier Blanco' }],
      externalReferences: expect.arrayContaining([{ type: 'other', url: 'http://jbgutierrez.info', comment: 'author' }]) as unknown,
    });
    expect(byName.get('noemail')?.['authors']).toEqual([{ name: 'Name' }]);
    // The homepage is a git address, not a page: left out; the repository shorthand is a URL.
    expect(byName.get('noemail')?.['externalReferences']).toEqual([{ type: 'vcs', url: 'https://github.com/owner/repo' }]);
    expect(byName.get('both')).toMatchObject({
      authors: [{ name: 'Zoë 🦄', email: 'zoe@example.com' }],
      licenses: [{ expression: 'ISC' }],
      externalReferences: expect.arrayContaining([{ type: 'other', url: 'https://zoe.example.com', comment: 'author' }]) as unknown,
    });
    // "a@b" is no address the schema's format accepts.
    expect(byName.get('short')?.['authors']).toEqual([{ name: 'Shorty' }]);
    expect(notice(bom['properties'] as { name: string; value: string }[])).toContain(
      '3 registry metadata value(s) that do not fit the document format were left out: 2 author email, 1 homepage.',
    );
  });

  it('SPDX: the originator has no place for a URL; those are counted too', async () => {
    const spdx = await render('spdx');
    expect(spdxProblems(spdx)).toEqual({ schema: [], content: [] });
    const byName = new Map((spdx['packages'] as Json[]).map((p) => [p['name'], p]));
    expect(byName.get('path-parse')).toMatchObject({ originator: 'Person: Javier Blanco', homepage: 'https://github.com/jbgutierrez/path-parse#readme' });
    expect(byName.get('noemail')).toMatchObject({ originator: 'Person: Name' });
    expect(byName.get('noemail')).not.toHaveProperty('homepage');
    // SPDX's agent form: the email in parentheses; the author supplies an npm package.
    expect(byName.get('both')).toMatchObject({ originator: 'Person: Zoë 🦄 (zoe@example.com)', supplier: 'Person: Zoë 🦄 (zoe@example.com)', licenseDeclared: 'ISC' });
    const comment = (spdx['creationInfo'] as Json)['comment'] as string;
    expect(comment).toContain('5 registry metadata value(s) that do not fit the document format were left out: 2 author email, 2 author URL, 1 homepage.');
  });
});
