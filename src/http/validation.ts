import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats ships CommonJS with `exports.default`; under NodeNext the default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * Request validation. JSON bodies are validated strictly: unknown properties are rejected
 * (never silently removed), `null` is only accepted where a schema allows it, and nothing is
 * coerced. Query strings and path parameters arrive as text, so there numbers are coerced.
 */
const SHARED: Options = { allErrors: false, useDefaults: true, strict: true, removeAdditional: false };

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ ...SHARED, ...options });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: true });

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  const validate: ValidateFunction = ajv.compile(schema as object);
  return validate;
};

/**
 * The query schema of operations that take no query parameters (list, lockfile jobs): any
 * parameter, `fields` included, is a 400 rather than silently ignored.
 */
export const NO_QUERY_PARAMETERS = {
  type: 'object',
  properties: {},
  additionalProperties: false,
  description: 'This operation takes no query parameters.',
} as const;

const PART_NAMES: Readonly<Record<string, string>> = {
  body: 'request body',
  querystring: 'query',
  params: 'path',
  headers: 'headers',
};

/** `/paths/3/x` → `paths[3].x`; the root is named after the request part. */
export function fieldName(instancePath: string, part: string, child?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  if (segments.length === 0) return PART_NAMES[part] ?? part;
  return segments.reduce((name, s) => (/^\d+$/.test(s) ? `${name}[${s}]` : name === '' ? s : `${name}.${s}`), '');
}

/** The parts of an Ajv error (or Fastify's copy of one) that the description uses. */
export interface SchemaError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string | undefined;
}

/** A client-safe sentence naming the offending field, from the first Ajv error. */
export function describeValidationError(error: SchemaError, part: string): string {
  const params = error.params;
  switch (error.keyword) {
    case 'required':
      return `${fieldName(error.instancePath, part, String(params['missingProperty']))} is required`;
    case 'additionalProperties':
      if (part === 'querystring' && error.instancePath === '') return `query parameter ${String(params['additionalProperty'])} is not accepted by this operation`;
      return `${fieldName(error.instancePath, part, String(params['additionalProperty']))} is not an allowed field`;
    case 'type': {
      const field = fieldName(error.instancePath, part);
      return `${field} must be ${describeType(String(params['type']))}`;
    }
    case 'enum': {
      const allowed = Array.isArray(params['allowedValues']) ? params['allowedValues'].map(String).join(', ') : '';
      return `${fieldName(error.instancePath, part)} must be one of: ${allowed}`;
    }
    case 'minLength':
      return Number(params['limit']) === 1
        ? `${fieldName(error.instancePath, part)} must not be empty`
        : `${fieldName(error.instancePath, part)} must be at least ${String(params['limit'])} characters`;
    case 'maxLength':
      return `${fieldName(error.instancePath, part)} must be at most ${String(params['limit'])} characters`;
    case 'maxItems':
      return `${fieldName(error.instancePath, part)} must have at most ${String(params['limit'])} items`;
    case 'minItems':
      return `${fieldName(error.instancePath, part)} must have at least ${String(params['limit'])} items`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${fieldName(error.instancePath, part)} ${error.message ?? 'is out of range'}`;
    case 'pattern':
    case 'format':
      return `${fieldName(error.instancePath, part)} has an invalid format`;
    default:
      return `${fieldName(error.instancePath, part)} ${error.message ?? 'is invalid'}`;
  }
}

function describeType(type: string): string {
  const names: Record<string, string> = {
    object: 'a JSON object',
    array: 'an array',
    string: 'a string',
    integer: 'an integer',
    number: 'a number',
    boolean: 'a boolean',
    null: 'null',
  };
  return type
    .split(',')
    .map((t) => names[t] ?? t)
    .join(' or ');
}
