import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { _, Ajv, type CodeKeywordDefinition, type ValidateFunction } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { allUnique, formats } from './cyclonedx-runtime.cjs';
import { AnalysisError } from '../types.js';

/**
 * CycloneDX 1.7 validation with the CycloneDX library's own bundled JSON schemas, compiled with
 * the library validator's Ajv options and formats. One change: the schema's `uniqueItems`
 * (47 arrays, components and dependencies among them) is checked in linear time by canonical
 * JSON instead of Ajv's pairwise deep comparison, which takes over a second on 2,700 components.
 * The verdicts are the same as the library's JsonStrictValidator (a test compares them).
 *
 * Compiling the schemas takes about half a second, so `npm run build` writes the compiled
 * validator as Ajv standalone code (`cyclonedx-validator.cjs`, beside the built module and the
 * runtime helpers it requires); a process running from the sources compiles on first use.
 */

const SCHEMA_FILES = {
  bom: 'bom-1.7.SNAPSHOT.schema.json',
  refs: {
    'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json': 'spdx.SNAPSHOT.schema.json',
    'http://cyclonedx.org/schema/cryptography-defs.SNAPSHOT.schema.json': 'cryptography-defs.SNAPSHOT.schema.json',
    'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json': 'jsf-0.82.SNAPSHOT.schema.json',
  },
} as const;

// ajv ships CommonJS with `exports.default`; under NodeNext the default import is the module object.
const standaloneCode = standaloneModule.default;

/** The runtime helpers' module, as the standalone code requires it (from the same folder). */
const RUNTIME = './cyclonedx-runtime.cjs';
/** The standalone validator `npm run build` writes beside this module. */
export const STANDALONE_FILE = 'cyclonedx-validator.cjs';

function schemaDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')), 'res', 'schema');
}

/** Replaces every `uniqueItems: true` with the linear keyword, leaving the rest untouched. */
function linearUniqueness(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(linearUniqueness);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'uniqueItems' && value === true) out['uniqueItemsLinear'] = true;
    else out[key] = linearUniqueness(value);
  }
  return out;
}

/** `uniqueItems` in linear time, as generated code (so that standalone code can hold it). */
const uniqueItemsLinear: CodeKeywordDefinition = {
  keyword: 'uniqueItemsLinear',
  type: 'array',
  schemaType: 'boolean',
  code(cxt) {
    if (cxt.schema !== true) return;
    const unique = cxt.gen.scopeValue('func', { ref: allUnique, code: _`require(${RUNTIME}).allUnique` });
    cxt.fail(_`!${unique}(${cxt.data})`);
  },
};

/** Compiles the schemas (with the source kept, for standalone code). */
function compile(): { readonly ajv: Ajv; readonly validate: ValidateFunction } {
  const dir = schemaDir();
  const read = (file: string): unknown => JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
  const schemas: Record<string, object> = {};
  for (const [uri, file] of Object.entries(SCHEMA_FILES.refs)) schemas[uri] = linearUniqueness(read(file)) as object;
  const ajv = new Ajv({
    useDefaults: false,
    strict: false,
    strictSchema: false,
    addUsedSchema: false,
    schemas,
    formats,
    keywords: [uniqueItemsLinear],
    code: { source: true, formats: _`require(${RUNTIME}).formats` },
  });
  return { ajv, validate: ajv.compile(linearUniqueness(read(SCHEMA_FILES.bom)) as object) };
}

/** The compiled validator as a CommonJS module requiring Ajv's runtime and `cyclonedx-runtime.cjs`. */
export function cycloneDxStandaloneCode(): string {
  const { ajv, validate } = compile();
  return standaloneCode(ajv, validate);
}

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (compiled) return compiled;
  try {
    compiled = createRequire(import.meta.url)(`./${STANDALONE_FILE}`) as ValidateFunction;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    compiled = compile().validate;
  }
  return compiled;
}

/** Problems `validate` finds in a CycloneDX JSON document; empty when it is valid. */
export function problemsWith(validate: ValidateFunction, json: string): string[] {
  if (validate(JSON.parse(json))) return [];
  return (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath} ${e.message ?? e.keyword}`);
}

/** Problems of a CycloneDX 1.7 JSON document; empty when it is valid. */
export function cycloneDxProblems(json: string): string[] {
  return problemsWith(validator(), json);
}

/** A failure means the service produced a broken document: `invalid_response`. */
export function validateCycloneDx(json: string): void {
  const problems = cycloneDxProblems(json);
  if (problems.length > 0) throw new AnalysisError('invalid_response', `CycloneDX validation failed: ${problems.join('; ')}`);
}
