/**
 * A document the service wrote that its own validation rejects (`invalid_response`) is our
 * defect: the failure names each component (purl, the uploaded file it came from) and field at
 * fault, so that the caller can report it and an operator can find it. The validators are given
 * real rendered documents with one defect put in by hand (the renderer fits every value it
 * knows, so no input of today yields one).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/sbom/analyze.js';
import { AnalysisError } from '../../src/model/types.js';
import { validateCycloneDx } from '../../src/sbom/validate/cyclonedx.js';
import { DOCUMENT_PATH, INVALID_DOCUMENT, invalidDocumentLog } from '../../src/sbom/validate/defects.js';
import { validateSpdx } from '../../src/sbom/validate/spdx.js';
import { fromWire, toWire } from '../../src/threads/analysis-protocol.js';
import { SMALL_NPM } from '../helpers/fixtures.js';

type Json = Record<string, unknown> & { components: Json[]; packages: Json[]; metadata: Json; dependencies: Json[]; compositions: Json[] };

const NOW = () => new Date('2026-01-02T03:04:05Z');
let cyclonedx: string;
let spdx: string;

beforeAll(async () => {
  cyclonedx = (await analyze(SMALL_NPM(), 'cyclonedx', { now: NOW })).document;
  spdx = (await analyze(SMALL_NPM(), 'spdx', { now: NOW })).document;
});

/** The rendered document with one defect put in by `edit`. */
function broken(document: string, edit: (doc: Json) => void): string {
  const doc = JSON.parse(document) as Json;
  edit(doc);
  return JSON.stringify(doc);
}

/** The failure `validate` throws for `json` (the test fails if it does not throw one). */
function failureOf(validate: (json: string) => void, json: string): AnalysisError {
  try {
    validate(json);
  } catch (error) {
    if (error instanceof AnalysisError) return error;
    throw error;
  }
  throw new Error('the document passed validation');
}

function componentNamed(doc: Json, name: string): Json {
  const found = doc.components.find((c) => c['name'] === name);
  if (!found) throw new Error(`no component ${name}`);
  return found;
}

describe('CycloneDX: the validator’s instance path, back to the component', () => {
  it('names the component’s purl, its lockfile and the field for /components/N/authors/0/email', () => {
    const json = broken(cyclonedx, (doc) => (componentNamed(doc, 'accepts')['authors'] = [{ name: 'Jane', email: 'not an email' }]));
    const index = (JSON.parse(json) as Json).components.findIndex((c) => c['name'] === 'accepts');
    const error = failureOf(validateCycloneDx, json);
    expect(error.code).toBe('invalid_response');
    // The validator's own words stay in the message (for the log), with the instance path.
    expect(error.message).toMatch(new RegExp(`^CycloneDX validation failed: /components/${index}/authors/0/email must match format "idn-email"`));
    expect(error.problems).toEqual([
      {
        path: 'package-lock.json',
        reason: INVALID_DOCUMENT,
        package: 'pkg:npm/accepts@1.3.8',
        field: 'authors[0].email',
        message: expect.stringMatching(/^component pkg:npm\/accepts@1\.3\.8, field authors\[0\]\.email: is not an email address \(pkgscope wrote a CycloneDX document its own validation rejects: a defect of the service/) as unknown,
      },
    ]);
  });

  it('names the subject (metadata.component) by name and version when it has no purl', () => {
    const error = failureOf(validateCycloneDx, broken(cyclonedx, (doc) => ((doc.metadata['component'] as Json)['version'] = 'v'.repeat(1025))));
    expect(error.problems).toMatchObject([{ path: 'package-lock.json', package: `fx-small@${'v'.repeat(1025)}`, field: 'version', message: expect.stringContaining('field version: is longer than 1024 characters') as unknown }]);
  });

  it('names the member a required or additional property complaint is about', () => {
    const extra = failureOf(validateCycloneDx, broken(cyclonedx, (doc) => (componentNamed(doc, 'chalk')['colour'] = 'red')));
    expect(extra.problems).toMatchObject([{ package: 'pkg:npm/chalk@4.1.2', field: 'colour', message: expect.stringMatching(/^component pkg:npm\/chalk@4\.1\.2, field colour: is not allowed there \(/) as unknown }]);
    // The validator's own words go to the log (the failure's message), never to the caller.
    expect(extra.message).toContain('must NOT have additional properties (colour)');
    expect(extra.problems[0]?.message).not.toContain('must');
    const missing = failureOf(validateCycloneDx, broken(cyclonedx, (doc) => delete componentNamed(doc, 'chalk')['name']));
    expect(missing.problems).toMatchObject([{ package: 'pkg:npm/chalk@4.1.2', field: 'name', message: expect.stringContaining('field name: is missing (') as unknown }]);
  });

  it('finds the component of a dependency entry by its ref', () => {
    const json = broken(cyclonedx, (doc) => {
      const entry = doc.dependencies.find((d) => d['ref'] === componentNamed(doc, 'chalk')['bom-ref']);
      if (!entry) throw new Error('no dependency entry for chalk');
      entry['dependsOn'] = [42];
    });
    const [problem] = failureOf(validateCycloneDx, json).problems;
    expect(problem).toMatchObject({ path: 'package-lock.json', package: 'pkg:npm/chalk@4.1.2', field: 'dependencies.dependsOn[0]', message: expect.stringContaining('is not of type string') as unknown });
  });

  it('names the document’s own field when the fault lies in no component', () => {
    const error = failureOf(validateCycloneDx, broken(cyclonedx, (doc) => (doc.compositions[0]!['aggregate'] = 'everything')));
    const [problem] = error.problems;
    expect(problem).toMatchObject({ path: DOCUMENT_PATH, reason: INVALID_DOCUMENT, field: 'compositions[0].aggregate' });
    expect(problem?.package).toBeUndefined();
    expect(problem?.message).toMatch(/^document field compositions\[0\]\.aggregate: is not one of the values the schema allows \(/);
  });

  it('checks the written value first, and names the place from the text when the value fails', () => {
    const json = broken(cyclonedx, (doc) => (componentNamed(doc, 'accepts')['authors'] = [{ email: '@' }]));
    const error = failureOf((text) => validateCycloneDx(text, JSON.parse(text)), json);
    expect(error.problems).toMatchObject([{ package: 'pkg:npm/accepts@1.3.8', field: 'authors[0].email' }]);
  });
});

describe('SPDX: /packages/N/… back to the package', () => {
  it('names the package’s purl, its lockfile (from the package comment) and the field', () => {
    const json = broken(spdx, (doc) => {
      const pkg = doc.packages.find((p) => p['name'] === 'accepts');
      if (!pkg) throw new Error('no package accepts');
      pkg['supplier'] = 'somebody';
    });
    const error = failureOf(validateSpdx, json);
    expect(error.code).toBe('invalid_response');
    expect(error.message).toMatch(/^SPDX schema: \/packages\/\d+\/supplier must match pattern/);
    expect(error.problems).toEqual([
      {
        path: 'package-lock.json',
        reason: INVALID_DOCUMENT,
        package: 'pkg:npm/accepts@1.3.8',
        field: 'supplier',
        message: expect.stringMatching(/^component pkg:npm\/accepts@1\.3\.8, field supplier: does not have the form the schema requires .*pkgscope wrote an SPDX document/) as unknown,
      },
    ]);
  });

  it('keeps a content rule broken by the inventory’s data as unrepresentable_spdx, with no defect named', () => {
    const error = failureOf(validateSpdx, broken(spdx, (doc) => (doc.packages[1]!['licenseDeclared'] = 'MIT OR')));
    expect(error.code).toBe('unrepresentable_spdx');
    expect(error.problems).toEqual([]);
  });
});

it('the log fields of a failure carry the validator’s words and each place at fault', () => {
  const error = failureOf(validateCycloneDx, broken(cyclonedx, (doc) => (componentNamed(doc, 'accepts')['authors'] = [{ email: 'x' }])));
  const fields = invalidDocumentLog(error);
  expect(fields.validation).toBe(error.message);
  expect(fields.defects).toEqual([{ package: 'pkg:npm/accepts@1.3.8', field: 'authors[0].email', file: 'package-lock.json', problem: error.problems[0]?.message }]);
});

it('the problems cross from an analysis thread to the caller whole', () => {
  const error = failureOf(validateCycloneDx, broken(cyclonedx, (doc) => (componentNamed(doc, 'accepts')['authors'] = [{ email: 'x' }])));
  const crossed = fromWire(structuredClone(toWire(error)));
  expect(crossed).toBeInstanceOf(AnalysisError);
  expect(crossed).toMatchObject({ code: 'invalid_response', message: error.message, problems: error.problems });
});
