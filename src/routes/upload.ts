import { isUtf8 } from 'node:buffer';
import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { checkUpload, UPLOAD_LIMITS } from '../jobs/submission.js';
import { ProblemError } from '../http/problems.js';
import { checkEnvironment, ENVIRONMENT_VALUE, PYTHON_ENVIRONMENT_KEYS, type AnalysisEnvironment } from '../model/environment.js';
import { MEDIA_TYPES, OUTPUT_FORMATS, type InputFile, type OutputFormat } from '../model/types.js';

/**
 * The upload shared by `POST /v1/experimental/lockfile-jobs` and `POST /v1/experimental/sbom`:
 * JSON `{format, files: [{path, content}], environment?}`, or multipart/form-data with a `format`
 * field, an optional `environment` field (the same object as JSON text) and one file part per
 * file whose filename is its relative path.
 */

/** The platform the project installs on: today Python's PEP 508 marker variables. */
export const EnvironmentBody = Type.Object(
  {
    python: Type.Optional(
      Type.Object(
        Object.fromEntries(PYTHON_ENVIRONMENT_KEYS.map((key) => [key, Type.Optional(Type.String({ pattern: ENVIRONMENT_VALUE.source }))])),
        {
          additionalProperties: false,
          description:
            'PEP 508 marker variables to resolve Python manifests without a lockfile for (default CPython 3.12 on Linux x86_64). A python_version alone implies its .0 full version; a sys_platform alone implies what CPython reports there.',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'The platform the project installs on; lockfiles are read as recorded whatever it says.' },
);

export const UploadBody = Type.Object(
  {
    format: Type.Enum([...OUTPUT_FORMATS], { description: 'Output format of the inventory.' }),
    files: Type.Array(
      Type.Object(
        {
          path: Type.String({ minLength: 1, description: 'Relative, /-separated path, e.g. packages/a/package.json.' }),
          content: Type.String({ description: 'The file text (UTF-8).' }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: UPLOAD_LIMITS.maxFiles },
    ),
    environment: Type.Optional(EnvironmentBody),
    vulnerabilities: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Match the components against the security advisories the service holds (OSV), and write what affects them into the document.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UploadBodyType = Static<typeof UploadBody>;

/** JSON escaping can double a text's size; the decoded files are held to 32 MiB separately. */
export const UPLOAD_BODY_LIMIT = 2 * UPLOAD_LIMITS.maxTotalBytes + 1024 * 1024;

/** The results' media types, as OpenAPI responses (the document itself is described by its own schema). */
export const DOCUMENT_CONTENT = {
  [MEDIA_TYPES.cyclonedx]: { schema: Type.Object({}, { description: 'A CycloneDX 1.7 JSON document.' }) },
  [MEDIA_TYPES.spdx]: { schema: Type.Object({}, { description: 'An SPDX 2.3 JSON document.' }) },
  [MEDIA_TYPES.text]: { schema: Type.String({ description: 'A plain-text inventory.' }) },
};

/** Schema for routes taking an upload: JSON is validated strictly; multipart is read by hand. */
export const uploadBodySchema = {
  content: {
    'application/json': { schema: UploadBody },
    'multipart/form-data': {
      schema: Type.Unsafe<unknown>({
        description:
          'A `format` field, optional `environment` (JSON text) and `vulnerabilities` (`true` or `false`) fields, and one file part per file, whose filename is its relative path.',
      }),
    },
  },
};

export const MULTIPART_OPTIONS = {
  // Keep directory parts of filenames: they are the uploaded paths.
  preservePath: true,
  limits: {
    files: UPLOAD_LIMITS.maxFiles,
    fileSize: UPLOAD_LIMITS.maxFileBytes,
    fields: 8,
    fieldSize: 1024,
    parts: UPLOAD_LIMITS.maxFiles + 8,
  },
} as const;

export interface Upload {
  readonly format: OutputFormat;
  readonly files: InputFile[];
  readonly environment: AnalysisEnvironment | null;
  /** Whether the components are to be matched against advisories. */
  readonly vulnerabilities: boolean;
  readonly totalBytes: number;
}

function invalid(detail: string): ProblemError {
  return new ProblemError('VALIDATION_ERROR', detail);
}

const nulDetail = (path: string): string => `File ${JSON.stringify(path)} contains a NUL character; only text files are accepted.`;

async function readMultipart(request: FastifyRequest): Promise<{ format: unknown; environment: unknown; vulnerabilities: unknown; files: InputFile[] }> {
  let format: unknown;
  let environment: unknown;
  let vulnerabilities: unknown;
  const files: InputFile[] = [];
  let total = 0;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (part.fieldname === 'format') format = part.value;
        else if (part.fieldname === 'environment') environment = parseEnvironmentField(part.value);
        else if (part.fieldname === 'vulnerabilities') vulnerabilities = parseFlagField('vulnerabilities', part.value);
        else throw invalid(`Multipart field ${JSON.stringify(part.fieldname)} is not allowed.`);
        continue;
      }
      const path = part.filename;
      let buffer: Buffer;
      try {
        buffer = await part.toBuffer();
      } catch (error) {
        if ((error as { code?: unknown }).code === 'FST_REQ_FILE_TOO_LARGE') {
          throw invalid(`File ${JSON.stringify(path)} is larger than ${UPLOAD_LIMITS.maxFileBytes} bytes.`);
        }
        throw error;
      }
      total += buffer.length;
      if (total > UPLOAD_LIMITS.maxTotalBytes) {
        throw invalid(`The files together are larger than ${UPLOAD_LIMITS.maxTotalBytes} bytes.`);
      }
      if (!isUtf8(buffer)) throw invalid(`File ${JSON.stringify(path)} is not valid UTF-8 text.`);
      files.push({ path, content: buffer.toString('utf8') });
    }
  } catch (error) {
    throw multipartProblem(error);
  }
  return { format, environment, vulnerabilities, files };
}

/**
 * What the multipart reader threw, as the client's fault: our own 400s and the framework's coded
 * limits pass through (the error handler names them); anything else is the parser refusing the
 * body (busboy's fixed messages: no boundary, unexpected end of form, malformed headers).
 */
function multipartProblem(error: unknown): Error {
  if (error instanceof ProblemError) return error;
  const code = (error as { code?: unknown }).code;
  if (error instanceof Error && typeof code === 'string' && code.startsWith('FST_') && code !== 'FST_MP_PREMATURE_CLOSE') return error;
  const reason = error instanceof Error && /^[\w :.,'-]{1,80}$/.test(error.message) ? `: ${error.message.replace(/^Multipart: /, '')}` : '';
  return invalid(`The multipart body is malformed${reason}.`);
}

function parseEnvironmentField(value: unknown): unknown {
  try {
    return JSON.parse(String(value)) as unknown;
  } catch {
    throw invalid('The environment field must be a JSON object.');
  }
}

function parseFlagField(name: string, value: unknown): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw invalid(`The ${name} field must be true or false.`);
}

/** Reads and checks an upload; every rule broken is a 400 VALIDATION_ERROR naming the file. */
export async function readUpload(request: FastifyRequest): Promise<Upload> {
  let format: unknown;
  let files: InputFile[];
  let environment: unknown;
  let vulnerabilities: unknown;
  if (request.isMultipart()) {
    ({ format, environment, vulnerabilities, files } = await readMultipart(request));
    if (format === undefined) throw invalid('format is required.');
    if (!OUTPUT_FORMATS.includes(format as OutputFormat)) throw invalid(`format must be one of: ${OUTPUT_FORMATS.join(', ')}.`);
  } else {
    const body = request.body as UploadBodyType | undefined;
    if (body === undefined) throw invalid('A JSON or multipart/form-data body is required.');
    ({ format, files, environment, vulnerabilities } = body);
  }
  const check = checkUpload(files);
  if (!check.ok) throw invalid(check.detail);
  // Manifests and lockfiles are text; a NUL is no part of any, and PostgreSQL text cannot hold one.
  const withNul = files.find((file) => file.content.includes('\u0000'));
  if (withNul !== undefined) throw invalid(nulDetail(withNul.path));
  let checked: AnalysisEnvironment | null = null;
  if (environment !== undefined) {
    const env = checkEnvironment(environment);
    if (!env.ok) throw invalid(env.detail);
    checked = env.environment.python === undefined ? null : env.environment;
  }
  return { format: format as OutputFormat, files, environment: checked, vulnerabilities: vulnerabilities === true, totalBytes: check.totalBytes };
}
