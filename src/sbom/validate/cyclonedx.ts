import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import addDraft2019FormatsModule from 'ajv-formats-draft2019';
import { AnalysisError } from '../types.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const addDraft2019Formats = addDraft2019FormatsModule;

/**
 * CycloneDX 1.7 validation with the CycloneDX library's own bundled JSON schemas, compiled with
 * the library validator's Ajv options and formats. One change: the schema's `uniqueItems`
 * (47 arrays, components and dependencies among them) is checked in linear time by canonical
 * JSON instead of Ajv's pairwise deep comparison, which takes over a second on 2,700 components.
 * The verdicts are the same as the library's JsonStrictValidator (a test compares them).
 */

const SCHEMA_FILES = {
  bom: 'bom-1.7.SNAPSHOT.schema.json',
  refs: {
    'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json': 'spdx.SNAPSHOT.schema.json',
    'http://cyclonedx.org/schema/cryptography-defs.SNAPSHOT.schema.json': 'cryptography-defs.SNAPSHOT.schema.json',
    'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json': 'jsf-0.82.SNAPSHOT.schema.json',
  },
} as const;

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

/** JSON with object keys sorted: equal strings exactly when the values are deeply equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function allUnique(items: readonly unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const key = canonical(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (compiled) return compiled;
  const dir = schemaDir();
  const read = (file: string): unknown => JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
  const schemas: Record<string, object> = {};
  for (const [uri, file] of Object.entries(SCHEMA_FILES.refs)) schemas[uri] = linearUniqueness(read(file)) as object;
  const ajv = new Ajv({ useDefaults: false, strict: false, strictSchema: false, addUsedSchema: false, schemas });
  addFormats(ajv);
  addDraft2019Formats(ajv, { formats: ['idn-email'] });
  ajv.addFormat('iri-reference', true);
  ajv.addKeyword({
    keyword: 'uniqueItemsLinear',
    type: 'array',
    schemaType: 'boolean',
    validate: (enabled: boolean, data: unknown[]) => !enabled || allUnique(data),
  });
  compiled = ajv.compile(linearUniqueness(read(SCHEMA_FILES.bom)) as object);
  return compiled;
}

/** Problems of a CycloneDX 1.7 JSON document; empty when it is valid. */
export function cycloneDxProblems(json: string): string[] {
  const validate = validator();
  if (validate(JSON.parse(json))) return [];
  return (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath} ${e.message ?? e.keyword}`);
}

/** A failure means the service produced a broken document: `invalid_response`. */
export function validateCycloneDx(json: string): void {
  const problems = cycloneDxProblems(json);
  if (problems.length > 0) throw new AnalysisError('invalid_response', `CycloneDX validation failed: ${problems.join('; ')}`);
}
