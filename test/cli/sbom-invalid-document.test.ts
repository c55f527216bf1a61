/**
 * `pkgscope sbom` when the document the analysis wrote fails its own validation: the command
 * prints the failure code, then each component (purl) and field at fault, and exits 1. The
 * renderer fits every value it knows, so no input of today yields such a document; the seam is
 * the renderer module, replaced in this file by one that writes the real document with one member
 * the schema refuses. Everything after it is the product's: analyze()'s validation, the failure,
 * the command's output.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sbomCommand } from '../../src/commands/sbom.js';
import type * as CycloneDxRenderer from '../../src/sbom/render/cyclonedx.js';
import { analyze } from '../../src/sbom/analyze.js';
import { AnalysisError } from '../../src/model/types.js';
import { SMALL_NPM } from '../helpers/fixtures.js';

vi.mock('../../src/sbom/render/cyclonedx.js', async (importOriginal) => {
  const real = await importOriginal<typeof CycloneDxRenderer>();
  const { BoundedOutput, writeJson } = await import('../../src/sbom/render/output.js');
  return {
    ...real,
    renderCycloneDx: (...[input, out]: Parameters<typeof real.renderCycloneDx>): object => {
      const document = real.renderCycloneDx(input, new BoundedOutput()) as { components: { name: string; authors?: unknown }[] };
      // An author email the schema's idn-email format refuses, on one component.
      const accepts = document.components.find((c) => c.name === 'accepts');
      if (accepts) accepts.authors = [{ name: 'Jane', email: 'jane at example' }];
      writeJson(out, document);
      return document;
    },
  };
});

const PURL = 'pkg:npm/accepts@1.3.8';

describe('a document that fails its own validation', () => {
  it('fails analyze() with invalid_response naming the component, its file and the field', async () => {
    const failure = await analyze(SMALL_NPM(), 'cyclonedx').then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AnalysisError);
    expect(failure).toMatchObject({
      code: 'invalid_response',
      message: expect.stringMatching(/^CycloneDX validation failed: \/components\/\d+\/authors\/0\/email must match format "idn-email"/) as unknown,
      problems: [{ path: 'package-lock.json', reason: 'invalid_document', package: PURL, field: 'authors[0].email' }],
    });
  });

  describe('pkgscope sbom', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'pkgscope-invalid-'));
      for (const file of SMALL_NPM()) await writeFile(join(dir, file.path), file.content);
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('prints the failure code, then the file, the purl and the field, and exits 1', async () => {
      const err: string[] = [];
      const out: string[] = [];
      const code = await sbomCommand(['--offline', dir], { out: (l) => out.push(l), err: (l) => err.push(l), writeOut: (t) => out.push(t), progress: null }, 5_000);
      expect(code).toBe(1);
      expect(out).toEqual([]);
      expect(err[0]).toBe('pkgscope: analysis failed: invalid_response');
      const lines = err.filter((l) => l.endsWith('[invalid_document]'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^ {2}package-lock\.json: component pkg:npm\/accepts@1\.3\.8, field authors\[0\]\.email: is not an email address /);
      expect(lines[0]).toContain('a defect of the service, not of the uploaded files; please report it');
      expect(lines[0]).toContain(`(${PURL}) [invalid_document]`);
    });
  });
});
