import type { ErrorObject } from 'ajv';
import { AnalysisError, type FileProblem } from '../../model/types.js';

/**
 * A document the service wrote that its own validation rejects is a defect of the service
 * (`invalid_response`), never of the caller's files. This module says where in the document each
 * of the validator's complaints lies, in terms a caller and an operator can act on: the component
 * (its purl, bom-ref and the uploaded file it came from) and the field within it.
 */

/** The formats whose documents are validated (text has no schema). */
export const VALIDATED_FORMATS = ['cyclonedx', 'spdx'] as const;
export type ValidatedFormat = (typeof VALIDATED_FORMATS)[number];

/** The problem reason of a place in the written document its validation rejected. */
export const INVALID_DOCUMENT = 'invalid_document';

/** The problem path of a fault outside every component: it belongs to no uploaded file. */
export const DOCUMENT_PATH = '(document)';

/** At most this many places are named per failure (the validator stops early anyway). */
const MAX_DEFECTS = 10;

const DOCUMENT_NAMES: Readonly<Record<ValidatedFormat, string>> = { cyclonedx: 'a CycloneDX document', spdx: 'an SPDX document' };

/** The component (CycloneDX) or package (SPDX) a fault lies in. */
export interface DefectSubject {
  /** Its bom-ref (CycloneDX) or SPDXID. */
  readonly ref: string | null;
  readonly purl: string | null;
  readonly name: string | null;
  readonly version: string | null;
  /** The uploaded file it was read from, as the document records it. */
  readonly lockfile: string | null;
}

export interface DocumentDefect {
  /** The validator's instance path (a JSON pointer into the document). */
  readonly pointer: string;
  /** What is wrong there, in our words (the validator's own go to the log with the failure's message). */
  readonly message: string;
  readonly subject: DefectSubject | null;
  /** The member at fault, relative to the subject (or to the document): `authors[0].email`; '' for the subject itself. */
  readonly field: string;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The item of `list` at the pointer token `index`, when it is an object. */
function item(list: unknown, index: string | undefined): Json | null {
  if (index === undefined || !/^(0|[1-9]\d*)$/.test(index) || !Array.isArray(list)) return null;
  const value: unknown = list[Number(index)];
  return isRecord(value) ? value : null;
}

function tokensOf(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Pointer tokens as a field name: `authors`, `0`, `email` → `authors[0].email`. */
function fieldName(tokens: readonly string[]): string {
  let name = '';
  for (const t of tokens) name += /^\d+$/.test(t) ? `[${t}]` : name === '' ? t : `.${t}`;
  return name;
}

const FORMAT_NOUNS: Readonly<Record<string, string>> = {
  email: 'an email address',
  'idn-email': 'an email address',
  uri: 'a URL',
  'uri-reference': 'a URL',
  iri: 'a URL',
  'iri-reference': 'a URL',
  'date-time': 'a date and time',
};

/**
 * A complaint in the caller's terms, from its keyword: what callers see holds no library's raw
 * message (DESIGN: details go to the logs), and stays the same when the validator's wording changes.
 */
function wrongness(error: ErrorObject): string {
  const params = error.params as { format?: unknown; limit?: unknown; type?: unknown };
  switch (error.keyword) {
    case 'required':
      return 'is missing';
    case 'additionalProperties':
      return 'is not allowed there';
    case 'format':
      return `is not ${FORMAT_NOUNS[String(params.format)] ?? `in the format ${String(params.format)}`}`;
    case 'pattern':
      return 'does not have the form the schema requires';
    case 'maxLength':
      return `is longer than ${String(params.limit)} characters`;
    case 'minLength':
      return params.limit === 1 ? 'is empty' : `is shorter than ${String(params.limit)} characters`;
    case 'maxItems':
      return `has more than ${String(params.limit)} items`;
    case 'minItems':
      return `has fewer than ${String(params.limit)} items`;
    case 'type':
      return `is not of type ${String(params.type)}`;
    case 'enum':
    case 'const':
      return 'is not one of the values the schema allows';
    case 'uniqueItems':
    case 'uniqueItemsLinear':
      return 'holds the same item twice';
    default:
      return 'does not fit the schema';
  }
}

/** The member a `required` or `additionalProperties` complaint is about, which its instance path stops short of. */
function namedMember(error: ErrorObject): string | null {
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
  return text(params.missingProperty) ?? text(params.additionalProperty);
}

function cycloneDxSubject(component: Json): DefectSubject {
  const properties = Array.isArray(component['properties']) ? (component['properties'] as unknown[]) : [];
  const lockfile = properties.find((p): p is Json => isRecord(p) && p['name'] === 'service:lockfile');
  const group = text(component['group']);
  const name = text(component['name']);
  return {
    ref: text(component['bom-ref']),
    purl: text(component['purl']),
    name: group !== null && name !== null ? `${group}/${name}` : name,
    version: text(component['version']),
    lockfile: lockfile === undefined ? null : text(lockfile['value']),
  };
}

/** The component a CycloneDX pointer lies in (`/components/N…`, `/metadata/component…`, nested components, `/dependencies/N` by its ref). */
function locateCycloneDx(document: unknown, tokens: readonly string[]): { subject: Json; rest: readonly string[] } | null {
  if (!isRecord(document)) return null;
  let node: Json | null = null;
  let at = 2;
  if (tokens[0] === 'components') node = item(document['components'], tokens[1]);
  else if (tokens[0] === 'metadata' && tokens[1] === 'component' && isRecord(document['metadata'])) {
    const component = document['metadata']['component'];
    node = isRecord(component) ? component : null;
  } else if (tokens[0] === 'dependencies') {
    const ref = text(item(document['dependencies'], tokens[1])?.['ref']);
    const components: unknown[] = Array.isArray(document['components']) ? (document['components'] as unknown[]) : [];
    const all = [...components, isRecord(document['metadata']) ? document['metadata']['component'] : null];
    const found = ref === null ? undefined : all.find((c): c is Json => isRecord(c) && c['bom-ref'] === ref);
    // The fault is in the dependency entry, not in the component: its field keeps the entry's path.
    return found === undefined ? null : { subject: found, rest: ['dependencies', ...tokens.slice(2)] };
  }
  if (node === null) return null;
  let subject: Json = node;
  while (tokens[at] === 'components') {
    const nested = item(subject['components'], tokens[at + 1]);
    if (nested === null) break;
    subject = nested;
    at += 2;
  }
  return { subject, rest: tokens.slice(at) };
}

function spdxSubject(pkg: Json): DefectSubject {
  const refs = Array.isArray(pkg['externalRefs']) ? (pkg['externalRefs'] as unknown[]) : [];
  const purl = refs.find((r): r is Json => isRecord(r) && r['referenceType'] === 'purl');
  // The renderer's comment is `…; lockfile: <path>; scope: <scope>…` (see render/spdx.ts).
  const lockfile = /(?:^|; )lockfile: (.+?); scope: /.exec(text(pkg['comment']) ?? '');
  return {
    ref: text(pkg['SPDXID']),
    purl: purl === undefined ? null : text(purl['referenceLocator']),
    name: text(pkg['name']),
    version: text(pkg['versionInfo']),
    lockfile: lockfile?.[1] ?? null,
  };
}

/** Where each of the validator's complaints lies in `document`. */
export function locateDefects(format: ValidatedFormat, document: unknown, errors: readonly ErrorObject[]): DocumentDefect[] {
  return errors.slice(0, MAX_DEFECTS).map((error) => {
    const tokens = tokensOf(error.instancePath);
    const member = namedMember(error);
    let subject: DefectSubject | null = null;
    let rest: readonly string[] = tokens;
    if (format === 'cyclonedx') {
      const found = locateCycloneDx(document, tokens);
      if (found !== null) {
        subject = cycloneDxSubject(found.subject);
        rest = found.rest;
      }
    } else if (tokens[0] === 'packages' && isRecord(document)) {
      const pkg = item(document['packages'], tokens[1]);
      if (pkg !== null) {
        subject = spdxSubject(pkg);
        rest = tokens.slice(2);
      }
    }
    return {
      pointer: error.instancePath,
      message: wrongness(error),
      subject,
      field: fieldName(member === null ? rest : [...rest, member]),
    };
  });
}

/** How a caller names the package: its purl, else name@version, else its ref. */
function packageOf(subject: DefectSubject): string | undefined {
  if (subject.purl !== null) return subject.purl;
  if (subject.name !== null) return subject.version === null ? subject.name : `${subject.name}@${subject.version}`;
  return subject.ref ?? undefined;
}

/** One caller-facing problem per place at fault (the same field of the same package once). */
export function defectProblems(format: ValidatedFormat, defects: readonly DocumentDefect[]): FileProblem[] {
  const seen = new Set<string>();
  const problems: FileProblem[] = [];
  const blame = `pkgscope wrote ${DOCUMENT_NAMES[format]} its own validation rejects: a defect of the service, not of the uploaded files; please report it`;
  for (const d of defects) {
    const pkg = d.subject === null ? undefined : packageOf(d.subject);
    const key = `${pkg ?? ''}\u0000${d.field}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const where =
      d.subject === null
        ? `document field ${d.field === '' ? '(root)' : d.field}`
        : `component ${pkg ?? '(unnamed)'}${d.field === '' ? '' : `, field ${d.field}`}`;
    problems.push({
      path: d.subject?.lockfile ?? DOCUMENT_PATH,
      reason: INVALID_DOCUMENT,
      message: `${where}: ${d.message} (${blame})`,
      ...(pkg === undefined ? {} : { package: pkg }),
      ...(d.field === '' ? {} : { field: d.field }),
    });
  }
  return problems;
}

/** The `invalid_response` failure of a document its validation rejected, naming where. */
export function invalidDocumentError(format: ValidatedFormat, document: unknown, errors: readonly ErrorObject[], summary: string): AnalysisError {
  return new AnalysisError('invalid_response', summary, { problems: defectProblems(format, locateDefects(format, document, errors)) });
}

/** A validator complaint as the failure's message states it. */
export function describeError(error: ErrorObject): string {
  const member = namedMember(error);
  return `${error.instancePath} ${error.message ?? error.keyword}${member === null ? '' : ` (${member})`}`;
}

/** The message of the error-level log line of an `invalid_response` failure (jobs and the synchronous endpoint alike). */
export const INVALID_DOCUMENT_LOG = 'the document failed our own validation (invalid_response: a defect of pkgscope)';

/** The fields of the error-level log line of an `invalid_response` failure: the validator's words and each place at fault. */
export function invalidDocumentLog(error: AnalysisError): {
  readonly validation: string;
  readonly defects: readonly { readonly package: string | null; readonly field: string | null; readonly file: string; readonly problem: string }[];
} {
  return {
    validation: error.message,
    defects: error.problems
      .filter((p) => p.reason === INVALID_DOCUMENT)
      .map((p) => ({ package: p.package ?? null, field: p.field ?? null, file: p.path, problem: p.message ?? '' })),
  };
}
