// The low-level Server is the SDK's API for tools whose input schemas are given as JSON Schema:
// ours are the HTTP operations' own TypeBox schemas, so they cannot drift apart (McpServer wants Zod).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Type, type TSchema } from 'typebox';
import type { App, RoutePlugin } from '../http/app.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';
import { CompareRequestBody, DiffQuery } from './inventory/compare-schemas.js';
import { GrepRequestBody } from './inventory/grep-schemas.js';
import { ListRequestBody, ReadQuery } from './inventory/schemas.js';
import { JOBS_PATH } from '../jobs/snapshot.js';
import { SERVICE_VERSION } from '../version.js';
import { LanguagesQuery } from './languages.js';
import { ChangelogQuery, PackageQuery, UpgradeReviewBody } from '../packages/schemas.js';
import { UploadBody } from './upload.js';

/**
 * `POST /mcp`: a Model Context Protocol server over Streamable HTTP (the official SDK), stateless
 * (a server and transport per request, no session), so it scales across API instances like every
 * other route. Each tool is one HTTP operation of this API, run in-process with the caller's own
 * Authorization header: the same validation, capabilities (`read` for grep and compare, `sbom`
 * for jobs), rate limits and answers. A tool's input schema is its operation's request schema;
 * its result is the operation's JSON body as structured content (read and browse actions intact),
 * or the problem document with `isError`.
 */

interface Tool {
  readonly name: string;
  readonly description: string;
  readonly input: TSchema;
  /** The operation: method, path and where the arguments go. */
  readonly call: (args: Record<string, unknown>) => { method: 'GET' | 'POST'; url: string; payload?: unknown; headers?: Record<string, string> };
  /** The operation answers a document in a media type of its own: the result is `{media_type, document}`, whatever that type. */
  readonly document?: true;
}

function query(path: string, args: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') params.set(k, String(v));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

const JobId = Type.Object({ id: Type.String({ format: 'uuid', description: 'The job id the submission answered.' }) }, { additionalProperties: false });

const SubmitJob = Type.Object(
  { ...UploadBody.properties, idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Sent as the Idempotency-Key header.' })) },
  { additionalProperties: false },
);

/** The package tools take the target as an argument; the HTTP operations have it in the path. */
const InspectPackage = Type.Object(
  { target: Type.String({ minLength: 1, description: 'A package target: npm:express@4.17.1 (no version: the latest).' }), ...PackageQuery.properties },
  { additionalProperties: false },
);
const PackageChangelog = Type.Object(
  { target: Type.String({ minLength: 1, description: 'A package target: npm:express@4.21.2.' }), ...ChangelogQuery.properties },
  { additionalProperties: false },
);

/** `/v1/packages/<target>[/rest]` with the other arguments as the query. */
function packageUrl(args: Record<string, unknown>, rest: string): string {
  const { target, ...others } = args;
  return query(`/v1/packages/${encodeURIComponent(typeof target === 'string' ? target : '')}${rest}`, others);
}

function jobId(args: Record<string, unknown>): string {
  return encodeURIComponent(typeof args['id'] === 'string' ? args['id'] : '');
}

export const MCP_TOOLS: readonly Tool[] = [
  { name: 'list', description: 'List the files, directories or pages of a package (npm:react@18.3.1), repository (github:owner/repo@ref) or documentation site (site:host/path). Entries carry read and browse actions.', input: ListRequestBody, call: (a) => ({ method: 'POST', url: '/v1/list', payload: a }) },
  { name: 'read', description: 'Read one file or page of a listed target byte for byte (the target and path of an entry\'s read action).', input: ReadQuery, call: (a) => ({ method: 'GET', url: query('/v1/read', a) }) },
  { name: 'grep', description: 'Search a package, repository or site for exact text or an RE2 regular expression; matches in path then line order with context and read actions.', input: GrepRequestBody, call: (a) => ({ method: 'POST', url: '/v1/grep', payload: a }) },
  { name: 'compare', description: 'The paths added, removed and modified between two versions of a package or two refs of a repository.', input: CompareRequestBody, call: (a) => ({ method: 'POST', url: '/v1/experimental/compare', payload: a }) },
  { name: 'compare_diff', description: 'The unified diff of one path between two versions or refs (a change\'s diff action).', input: DiffQuery, call: (a) => ({ method: 'GET', url: query('/v1/experimental/compare/diff', a) }) },
  { name: 'languages', description: 'Search the language ids the languages filter of list and grep accepts.', input: LanguagesQuery, call: (a) => ({ method: 'GET', url: query('/v1/languages', a) }) },
  { name: 'inspect_package', description: 'A package version: license, deprecation/yank/retraction, install scripts, declared dependencies, matched vulnerabilities and recent versions.', input: InspectPackage, call: (a) => ({ method: 'GET', url: packageUrl(a, '') }) },
  { name: 'package_changelog', description: 'The changelog entries of a package between two versions (from, exclusive; to, inclusive), from its own changelog file.', input: PackageChangelog, call: (a) => ({ method: 'GET', url: packageUrl(a, '/changelog') }) },
  { name: 'upgrade_review', description: 'What upgrading a package from target to `to` changes: vulnerabilities fixed and introduced, dependencies, license, install scripts, files and sizes, breaking hints, changelog.', input: UpgradeReviewBody, call: (a) => ({ method: 'POST', url: '/v1/packages/upgrade-review', payload: a }) },
  {
    name: 'submit_lockfile_job',
    description: 'Submit manifests and lockfiles of any ecosystem for a CycloneDX, SPDX or text inventory; answers the job snapshot (poll lockfile_job_status).',
    input: SubmitJob,
    call: ({ idempotency_key: key, ...body }) => ({ method: 'POST', url: JOBS_PATH, payload: body, ...(typeof key === 'string' ? { headers: { 'idempotency-key': key } } : {}) }),
  },
  { name: 'lockfile_job_status', description: 'The latest snapshot of a lockfile job: state, phase and progress counts.', input: JobId, call: (a) => ({ method: 'GET', url: `${JOBS_PATH}/${jobId(a)}` }) },
  { name: 'lockfile_job_result', description: 'The inventory document of a succeeded lockfile job, in the format chosen at submission.', input: JobId, call: (a) => ({ method: 'GET', url: `${JOBS_PATH}/${jobId(a)}/result` }), document: true },
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function runTool(app: App, authorization: string | undefined, tool: Tool, args: Record<string, unknown>): Promise<CallToolResult> {
  const request = tool.call(args);
  const res = await app.inject({
    method: request.method,
    url: request.url,
    headers: { ...(authorization === undefined ? {} : { authorization }), ...request.headers, ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(request.payload === undefined ? {} : { payload: JSON.stringify(request.payload) }),
  });
  const type = String(res.headers['content-type'] ?? '');
  const ok = res.statusCode >= 200 && res.statusCode < 300;
  let body: unknown = null;
  if (type.includes('json')) {
    try {
      body = JSON.parse(res.body) as unknown;
    } catch {
      body = null;
    }
  }
  // A document (a job's result, CycloneDX and SPDX being JSON too) is kept as the text it is, beside its media type.
  if (ok && tool.document === true) {
    return { content: [{ type: 'text', text: res.body }], structuredContent: { media_type: type, document: res.body } };
  }
  const structured = isRecord(body) ? body : { status: res.statusCode, media_type: type, document: res.body };
  return { content: [{ type: 'text', text: isRecord(body) ? JSON.stringify(body) : res.body }], structuredContent: structured, ...(ok ? {} : { isError: true }) };
}

// eslint-disable-next-line @typescript-eslint/no-deprecated
function mcpServer(app: App, authorization: string | undefined): Server {
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const server = new Server({ name: 'pkgscope', version: SERVICE_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: MCP_TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: { ...(t.input as Record<string, unknown>), type: 'object' as const } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = MCP_TOOLS.find((t) => t.name === request.params.name);
    // A tool that does not exist is a protocol error (invalid params), not a tool's failed run.
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}; tools/list names them.`);
    return runTool(app, authorization, tool, request.params.arguments ?? {});
  });
  return server;
}

/** `POST /mcp` (behind bearer authentication); GET and DELETE are 405: there are no sessions or streams to open. */
export function mcpRoutes(): RoutePlugin {
  return async (app: App) => {
    app.post(
      '/mcp',
      {
        schema: {
          summary: 'Model Context Protocol (Streamable HTTP, stateless): tools for list, read, grep, compare, languages, package inspection and lockfile jobs',
          operationId: 'mcp',
          tags: ['agents'],
          body: Type.Unsafe<unknown>({ description: 'A JSON-RPC message or batch (MCP).' }),
          response: {
            200: json('The JSON-RPC response (or batch); a failed tool run is a result with isError, an unknown tool the error -32602.', Type.Unsafe<unknown>({})),
            202: { description: 'A notification or response was accepted; nothing to answer.' },
            ...problemResponses(...AUTHENTICATED_PROBLEMS),
            // The MCP transport's own refusals are JSON-RPC errors, not problem documents.
            406: json('Accept must name application/json and text/event-stream (a JSON-RPC error).', Type.Unsafe<unknown>({})),
            415: json('Content-Type must be application/json (a JSON-RPC error).', Type.Unsafe<unknown>({})),
          },
          'x-service-cost': { weight: 1, class: 'light' },
        },
      },
      async (request, reply) => {
        const server = mcpServer(app, request.headers.authorization);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        reply.hijack();
        reply.raw.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      },
    );
  };
}
