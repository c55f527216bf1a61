import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OsvAdvisory } from './types.js';

// ajv-formats ships CommonJS with `exports.default`; under NodeNext the default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Why an entry of an advisory archive or folder was skipped. */
export type SkipReason = 'invalid_json' | 'schema' | 'too_large' | 'unsupported_entry';

export type OsvEntry =
  | {
      readonly ok: true;
      readonly advisory: OsvAdvisory;
      /** The document as stored: compact JSON of what was read. */
      readonly text: string;
    }
  | { readonly ok: false; readonly reason: SkipReason; readonly detail: string };

/** How many characters of a schema violation a log line quotes. */
const DETAIL_CHARS = 300;

/**
 * The most telling violation: the deepest one, a broken pattern or type before a missing
 * property (a `oneOf` reports every branch it tried; the branch the value meant goes deepest).
 */
function describe(errors: readonly ErrorObject[] | null | undefined): string {
  const rank = (e: ErrorObject): number => e.instancePath.split('/').length * 2 + (e.keyword === 'required' || e.keyword === 'oneOf' ? 0 : 1);
  const first = [...(errors ?? [])].sort((a, b) => rank(b) - rank(a))[0];
  if (first === undefined) return 'does not match the OSV schema';
  const text = `${first.instancePath === '' ? '/' : first.instancePath} ${first.message ?? 'is invalid'}`;
  return text.length <= DETAIL_CHARS ? text : `${text.slice(0, DETAIL_CHARS)}…`;
}

/**
 * The OSV JSON schema (draft 2020-12) as the OSV project publishes it, verbatim: ossf/osv-schema
 * `validation/schema.json` at commit 51b8156b69b9e2e9ff2301e649db61636067fcfa (2026-07-01;
 * Apache-2.0). To update, replace the file with a newer commit's and change this line. It sits
 * beside this module in the sources and in dist/ (tsconfig.build.json emits it); the bundled CLI
 * finds it there too, since the bundle rewrites `import.meta.url` to the module's own file.
 */
const SCHEMA_FILE = new URL('./osv-schema.json', import.meta.url);

/**
 * Parses and validates OSV documents against the OSV schema (./osv-schema.json). One compiled
 * validator serves a whole import; make one per import or lookup, it holds no per-entry state.
 */
export class OsvValidator {
  private readonly validate: ValidateFunction;

  constructor() {
    // Not strict: the published schema uses union types and titles inside keywords ajv's strict mode refuses.
    const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats(ajv);
    this.validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);
  }

  /** One entry's bytes (a JSON file of an archive or a folder). */
  parse(bytes: Buffer | string): OsvEntry {
    let doc: unknown;
    try {
      doc = JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
    } catch (error) {
      return { ok: false, reason: 'invalid_json', detail: error instanceof Error ? error.message.slice(0, DETAIL_CHARS) : 'not JSON' };
    }
    return this.check(doc);
  }

  /** An already parsed document. */
  check(doc: unknown): OsvEntry {
    const valid: boolean = this.validate(doc);
    if (!valid) {
      const named = doc as { id?: unknown } | null;
      const id = typeof named === 'object' && named !== null && typeof named.id === 'string' ? `${named.id}: ` : '';
      return { ok: false, reason: 'schema', detail: `${id}${describe(this.validate.errors)}` };
    }
    return { ok: true, advisory: doc as OsvAdvisory, text: JSON.stringify(doc) };
  }
}
