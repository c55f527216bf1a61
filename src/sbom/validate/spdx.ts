import type * as AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import parseSpdx from 'spdx-expression-parse';
import { lazily, requirePackage } from '../../model/lazy-require.js';
import { AnalysisError } from '../../model/types.js';
import { describeError, invalidDocumentError } from './defects.js';

/** Ajv loads with the first SPDX document: most runs write CycloneDX, validated by code the build wrote. */
const ajv = lazily(() => requirePackage('ajv') as typeof AjvModule);

/**
 * SPDX 2.3 JSON validation: a schema written from the SPDX 2.3 specification (clauses 6 and 7,
 * the document and package fields this service emits, each with its mandatory members), plus the
 * rules a schema cannot express: SPDX id syntax and uniqueness, license expression validity, and
 * that every relationship and LicenseRef points at something declared.
 */

const SPDX_ID = '^SPDXRef-[A-Za-z0-9.-]+$';
const NO_ASSERTION_OR_TEXT = { type: 'string', minLength: 1 };

const schema = {
  type: 'object',
  required: ['spdxVersion', 'dataLicense', 'SPDXID', 'name', 'documentNamespace', 'creationInfo'],
  additionalProperties: false,
  properties: {
    spdxVersion: { const: 'SPDX-2.3' },
    dataLicense: { const: 'CC0-1.0' },
    SPDXID: { const: 'SPDXRef-DOCUMENT' },
    name: { type: 'string', minLength: 1 },
    documentNamespace: { type: 'string', pattern: '^[a-z][a-z0-9+.-]*://[^#\\s]+$' },
    comment: { type: 'string' },
    documentDescribes: { type: 'array', items: { type: 'string', pattern: SPDX_ID } },
    creationInfo: {
      type: 'object',
      required: ['created', 'creators'],
      additionalProperties: false,
      properties: {
        created: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$' },
        creators: {
          type: 'array',
          minItems: 1,
          items: { type: 'string', pattern: '^(Tool|Organization|Person): .+' },
        },
        licenseListVersion: { type: 'string' },
        comment: { type: 'string' },
      },
    },
    packages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['SPDXID', 'name', 'downloadLocation'],
        additionalProperties: false,
        properties: {
          SPDXID: { type: 'string', pattern: SPDX_ID },
          name: { type: 'string', minLength: 1 },
          versionInfo: { type: 'string' },
          downloadLocation: NO_ASSERTION_OR_TEXT,
          filesAnalyzed: { type: 'boolean' },
          licenseConcluded: NO_ASSERTION_OR_TEXT,
          licenseDeclared: NO_ASSERTION_OR_TEXT,
          copyrightText: NO_ASSERTION_OR_TEXT,
          supplier: { type: 'string', pattern: '^(NOASSERTION|(Person|Organization): .+)$' },
          originator: { type: 'string', pattern: '^(NOASSERTION|(Person|Organization): .+)$' },
          homepage: { type: 'string' },
          description: { type: 'string' },
          summary: { type: 'string' },
          comment: { type: 'string' },
          primaryPackagePurpose: {
            enum: [
              'APPLICATION',
              'FRAMEWORK',
              'LIBRARY',
              'CONTAINER',
              'OPERATING-SYSTEM',
              'DEVICE',
              'FIRMWARE',
              'SOURCE',
              'ARCHIVE',
              'FILE',
              'INSTALL',
              'OTHER',
            ],
          },
          checksums: {
            type: 'array',
            items: {
              type: 'object',
              required: ['algorithm', 'checksumValue'],
              additionalProperties: false,
              properties: {
                algorithm: { enum: ['SHA1', 'SHA224', 'SHA256', 'SHA384', 'SHA512', 'MD5', 'SHA3-256', 'SHA3-384', 'SHA3-512'] },
                checksumValue: { type: 'string', pattern: '^[0-9a-f]+$' },
              },
            },
          },
          externalRefs: {
            type: 'array',
            items: {
              type: 'object',
              required: ['referenceCategory', 'referenceType', 'referenceLocator'],
              additionalProperties: false,
              properties: {
                referenceCategory: { enum: ['SECURITY', 'PACKAGE-MANAGER', 'PERSISTENT-ID', 'OTHER'] },
                referenceType: { type: 'string', minLength: 1 },
                referenceLocator: { type: 'string', pattern: '^\\S+$' },
              },
            },
          },
        },
      },
    },
    relationships: {
      type: 'array',
      items: {
        type: 'object',
        required: ['spdxElementId', 'relationshipType', 'relatedSpdxElement'],
        additionalProperties: false,
        properties: {
          spdxElementId: { type: 'string' },
          relationshipType: {
            enum: [
              'DESCRIBES',
              'DESCRIBED_BY',
              'CONTAINS',
              'CONTAINED_BY',
              'DEPENDS_ON',
              'DEPENDENCY_OF',
              'DEV_DEPENDENCY_OF',
              'OPTIONAL_DEPENDENCY_OF',
              'OTHER',
            ],
          },
          relatedSpdxElement: { type: 'string' },
          comment: { type: 'string' },
        },
      },
    },
    hasExtractedLicensingInfos: {
      type: 'array',
      items: {
        type: 'object',
        required: ['licenseId', 'extractedText'],
        additionalProperties: false,
        properties: {
          licenseId: { type: 'string', pattern: '^LicenseRef-[A-Za-z0-9.-]+$' },
          extractedText: { type: 'string', minLength: 1 },
          name: { type: 'string' },
          comment: { type: 'string' },
        },
      },
    },
  },
} as const;

let compiled: ValidateFunction | undefined;

interface SpdxDocument {
  readonly packages?: readonly { SPDXID: string; licenseConcluded?: string; licenseDeclared?: string }[];
  readonly relationships?: readonly { spdxElementId: string; relationshipType: string; relatedSpdxElement: string }[];
  readonly hasExtractedLicensingInfos?: readonly { licenseId: string }[];
}

function licenseProblems(value: string | undefined, declaredRefs: ReadonlySet<string>): string | null {
  if (value === undefined || value === 'NOASSERTION' || value === 'NONE') return null;
  try {
    const refs: string[] = [];
    const walk = (node: ReturnType<typeof parseSpdx>): void => {
      if ('license' in node) {
        if (node.license.startsWith('LicenseRef-')) refs.push(node.license);
      } else {
        walk(node.left);
        walk(node.right);
      }
    };
    walk(parseSpdx(value));
    const missing = refs.filter((r) => !declaredRefs.has(r));
    return missing.length === 0 ? null : `undeclared ${missing.join(', ')}`;
  } catch {
    return `invalid license expression ${JSON.stringify(value)}`;
  }
}

export interface SpdxProblems {
  /** Violations of the document's shape (the schema). */
  readonly schema: string[];
  /** Violations of the rules on its content (ids, licenses, references). */
  readonly content: string[];
}

/** The schema's complaints about the document (at most 20); empty when its shape is right. */
function schemaErrors(document: unknown): ErrorObject[] {
  compiled ??= new (ajv().Ajv)({ allErrors: true, strict: true }).compile(schema);
  if (compiled(document)) return [];
  return (compiled.errors ?? []).slice(0, 20);
}

/** Problems with the document; both lists are empty when it is valid SPDX 2.3. */
export function spdxProblems(document: unknown): SpdxProblems {
  const errors = schemaErrors(document);
  if (errors.length > 0) return { schema: errors.map(describeError), content: [] };
  return { schema: [], content: contentProblems(document as SpdxDocument) };
}

/** The rules a schema cannot express: ids, license expressions, references. */
function contentProblems(doc: SpdxDocument): string[] {
  const problems: string[] = [];
  const ids = new Set<string>(['SPDXRef-DOCUMENT']);
  for (const p of doc.packages ?? []) {
    if (ids.has(p.SPDXID)) problems.push(`duplicate SPDXID ${p.SPDXID}`);
    ids.add(p.SPDXID);
  }
  const declaredRefs = new Set((doc.hasExtractedLicensingInfos ?? []).map((l) => l.licenseId));
  if (declaredRefs.size !== (doc.hasExtractedLicensingInfos ?? []).length) problems.push('duplicate LicenseRef ids');
  for (const p of doc.packages ?? []) {
    for (const field of ['licenseConcluded', 'licenseDeclared'] as const) {
      const problem = licenseProblems(p[field], declaredRefs);
      if (problem !== null) problems.push(`${p.SPDXID} ${field}: ${problem}`);
    }
  }
  const special = new Set(['NONE', 'NOASSERTION']);
  for (const r of doc.relationships ?? []) {
    for (const end of [r.spdxElementId, r.relatedSpdxElement]) {
      if (!ids.has(end) && !special.has(end)) problems.push(`relationship ${r.relationshipType} points at unknown ${end}`);
    }
  }
  if ((doc.packages ?? []).length > 0 && !(doc.relationships ?? []).some((r) => r.relationshipType === 'DESCRIBES')) {
    problems.push('no DESCRIBES relationship');
  }
  return problems;
}

/**
 * Throws `unrepresentable_spdx` when the inventory's data broke an SPDX rule (ids, licenses,
 * references) and `invalid_response` when the document's shape is wrong (a defect of ours, its
 * problems naming each package and field at fault).
 */
export function validateSpdx(json: string): void {
  const document: unknown = JSON.parse(json);
  const errors = schemaErrors(document).slice(0, 10);
  if (errors.length > 0) throw invalidDocumentError('spdx', document, errors, `SPDX schema: ${errors.map(describeError).join('; ')}`);
  const content = contentProblems(document as SpdxDocument);
  if (content.length > 0) throw new AnalysisError('unrepresentable_spdx', `SPDX content: ${content.slice(0, 10).join('; ')}`);
}
