import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * The official SPDX 2.3 JSON schema (published by the SPDX project; a copy is kept under
 * test/fixtures/schemas so a clean clone validates against it), compiled once. Our own
 * validator (src/sbom/validate/spdx.ts) is checked against this independent one.
 */
export const officialSpdxSchema: ValidateFunction = (() => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(new URL('../fixtures/schemas/spdx-2.3.schema.json', import.meta.url), 'utf8')) as object);
})();
