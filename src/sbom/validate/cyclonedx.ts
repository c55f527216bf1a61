import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as AjvModule from 'ajv';
import type { Ajv, CodeKeywordDefinition, ErrorObject, ValidateFunction } from 'ajv';
import type standaloneModule from 'ajv/dist/standalone/index.js';
import { allUnique, formats, regExp } from './cyclonedx-runtime.cjs';
import { lazily, requirePackage } from '../../model/lazy-require.js';
import { describeError, invalidDocumentError } from './defects.js';

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

/**
 * Ajv and its standalone code generator load only to compile (the build, or a process running
 * from the sources): a built process runs the standalone code with Ajv's small runtime.
 */
const ajv = lazily(() => requirePackage('ajv') as typeof AjvModule);
// ajv ships CommonJS with `exports.default`: the generator is the module's `default`.
const standalone = lazily(() => requirePackage('ajv/dist/standalone/index.js') as typeof standaloneModule);

/** The runtime helpers' module, as the standalone code requires it (from the same folder). */
const RUNTIME = './cyclonedx-runtime.cjs';
/** Source text of generated code reaching one of the runtime helpers. */
const runtimeExport = (name: 'regExp' | 'ucs2length'): string => `require(${JSON.stringify(RUNTIME)}).${name}`;
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
const uniqueItemsLinear = (_: typeof AjvModule._): CodeKeywordDefinition => ({
  keyword: 'uniqueItemsLinear',
  type: 'array',
  schemaType: 'boolean',
  code(cxt) {
    if (cxt.schema !== true) return;
    const unique = cxt.gen.scopeValue('func', { ref: allUnique, code: _`require(${RUNTIME}).allUnique` });
    cxt.fail(_`!${unique}(${cxt.data})`);
  },
});

/** Compiles the schemas (with the source kept, for standalone code). */
function compile(): { readonly ajv: Ajv; readonly validate: ValidateFunction } {
  const dir = schemaDir();
  const read = (file: string): unknown => JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
  const schemas: Record<string, object> = {};
  for (const [uri, file] of Object.entries(SCHEMA_FILES.refs)) schemas[uri] = linearUniqueness(read(file)) as object;
  const { Ajv: AjvClass, _ } = ajv();
  const compiler = new AjvClass({
    useDefaults: false,
    strict: false,
    strictSchema: false,
    addUsedSchema: false,
    schemas,
    formats,
    keywords: [uniqueItemsLinear(_)],
    code: { source: true, formats: _`require(${RUNTIME}).formats`, regExp: Object.assign((pattern: string, flags: string) => regExp(pattern, flags), { code: runtimeExport('regExp') }) },
  });
  return { ajv: compiler, validate: compiler.compile(linearUniqueness(read(SCHEMA_FILES.bom)) as object) };
}

/** The compiled validator as a CommonJS module requiring Ajv's runtime and `cyclonedx-runtime.cjs`. */
export function cycloneDxStandaloneCode(): string {
  const { ajv, validate } = compile();
  // Ajv's code-point count, by the runtime's (the same answers, faster for the common string).
  return standalone().default(ajv, validate).replace('require("ajv/dist/runtime/ucs2length").default', runtimeExport('ucs2length'));
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

/** The validator's complaints about `document` (at most 10); empty when it is valid. */
function errorsWith(validate: ValidateFunction, document: unknown): ErrorObject[] {
  if (validate(document)) return [];
  return (validate.errors ?? []).slice(0, 10);
}

/** Problems `validate` finds in a CycloneDX JSON document; empty when it is valid. */
export function problemsWith(validate: ValidateFunction, json: string): string[] {
  return errorsWith(validate, JSON.parse(json)).map(describeError);
}

/** Problems of a CycloneDX 1.7 JSON document; empty when it is valid. */
export function cycloneDxProblems(json: string): string[] {
  return problemsWith(validator(), json);
}

/**
 * A failure means the service produced a broken document: `invalid_response`, whose problems name
 * each component and field at fault (see defects.ts). `written` is the
 * value the text was written from, when the renderer hands it over: the same data (writeJson
 * follows JSON.stringify's rules), checked without parsing the text again (a 3 MB document took
 * 30 ms to parse). Should the value fail, the text decides: a value can hold what JSON writes
 * differently, such as an undefined list item written as null. `json` may be a function giving
 * the text, called only then.
 */
export function validateCycloneDx(json: string | (() => string), written?: unknown): void {
  if (written !== undefined && validator()(written)) return;
  // The text, when given as a function, is asked for only now (a large one is joined only after the value passed).
  const document: unknown = JSON.parse(typeof json === 'string' ? json : json());
  const errors = errorsWith(validator(), document);
  if (errors.length === 0) return;
  // The places at fault are named from the document (which component, which field): a defect of ours, to be reported.
  throw invalidDocumentError('cyclonedx', document, errors, `CycloneDX validation failed: ${errors.map(describeError).join('; ')}`);
}
