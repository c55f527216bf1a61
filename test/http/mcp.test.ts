import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, ensureAccount } from '../../src/accounts/tokens.js';
import type { GrepResponseType } from '../../src/routes/inventory/grep-schemas.js';
import type { ListResponseType, ReadResponseType } from '../../src/routes/inventory/schemas.js';
import { JOBS_PATH, type JobSnapshot } from '../../src/jobs/snapshot.js';
import { ListRequestBody } from '../../src/routes/inventory/schemas.js';
import type { RunningWorkers } from '../../src/processes/workers.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';
import { packageTarball } from '../helpers/tarball.js';

/** `POST /mcp` end to end with the SDK's own client over HTTP. */

let h: JobsHarness;
let base: string;
let workers: RunningWorkers;
const clients: Client[] = [];
/** The registry holds every request for the package `slowpoke` until this settles (the end of the file). */
let releaseSlowpoke: () => void = () => undefined;
const slowpoke = new Promise<void>((resolve) => (releaseSlowpoke = resolve));
/** How long past its wait a list may take to resolve (LIST_DEADLINE_GRACE_MS of this file's service). */
const GRACE_MS = 3_000;

beforeAll(async () => {
  h = await startJobsHarness(
    { LIST_DEADLINE_GRACE_MS: String(GRACE_MS) },
    {
      holdFor: (path) => (path.startsWith('/slowpoke') ? slowpoke : undefined),
      packages: { toolbox: { versions: { '1.0.0': { _tarball: await packageTarball({ 'package.json': '{"name":"toolbox","version":"1.0.0"}\n', 'src/hammer.js': 'export const hammer = "nail";\n', 'README.md': '# toolbox\n' }) } } } },
    },
  );
  base = await h.listen();
  workers = await h.startWorkers();
});
afterAll(async () => {
  releaseSlowpoke();
  await Promise.all(clients.map((c) => c.close()));
  await workers.close();
  await h.close();
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'pkgscope-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

async function call<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  return result.structuredContent as T;
}

describe('MCP', () => {
  it('offers every operation as a tool whose input schema is the operation’s own', async () => {
    const client = await connect(await h.token('agent'));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['compare', 'compare_diff', 'grep', 'inspect_package', 'languages', 'list', 'lockfile_job_result', 'lockfile_job_status', 'package_changelog', 'read', 'submit_lockfile_job', 'upgrade_review']);
    const list = tools.find((t) => t.name === 'list');
    expect(list?.inputSchema.properties).toEqual(JSON.parse(JSON.stringify(ListRequestBody.properties)));
  });

  it('lists a package, follows a browse action, reads and greps a file, and runs a lockfile job', async () => {
    const token = await h.token('agent');
    const client = await connect(token);
    const top = await call<ListResponseType>(client, 'list', { target: 'npm:toolbox@1.0.0', wait_timeout_ms: 20_000 });
    const dir = top.entries.find((e) => e.kind === 'directory' && e.path === 'src');
    expect(dir?.browse).toBeTruthy();
    const inside = await call<ListResponseType>(client, 'list', { target: dir?.browse?.target, paths: dir?.browse?.paths });
    const file = inside.entries.find((e) => e.path === 'src/hammer.js');
    expect(file?.read).toEqual({ target: 'npm:toolbox@1.0.0', path: 'src/hammer.js' });
    const read = await call<ReadResponseType>(client, 'read', { target: file?.read?.target, path: file?.read?.path });
    expect(read.content).toBe('export const hammer = "nail";\n');
    const grep = await call<GrepResponseType>(client, 'grep', { target: 'npm:toolbox@1.0.0', pattern: 'nail' });
    expect(grep.matches.map((m) => `${m.path}:${m.line_number}`)).toEqual(['src/hammer.js:1']);

    const submitted = await call<JobSnapshot>(client, 'submit_lockfile_job', { format: 'text', files: SMALL_NPM(), idempotency_key: 'mcp-1' });
    // The job's own event stream says when it is done; the agent then asks its status as a tool.
    await new SseClient(`${base}${JOBS_PATH}/${submitted.id}/events`, token).ended;
    const snapshot = await call<JobSnapshot>(client, 'lockfile_job_status', { id: submitted.id });
    expect(snapshot).toMatchObject({ id: submitted.id, state: 'succeeded' });
    const result = await call<{ media_type: string; document: string }>(client, 'lockfile_job_result', { id: submitted.id });
    expect(result.media_type).toMatch(/^text\/plain/);
    expect(result.document).toMatch(/^pkgscope inventory/);
  });

  it('answers problems as tool errors, and checks capabilities as HTTP does', async () => {
    const limited = (await createToken(h.database.db, await ensureAccount(h.database.db, 'mcp-list-only', { capabilities: ['list'] }))).token;
    const client = await connect(limited);
    const denied = await client.callTool({ name: 'grep', arguments: { target: 'npm:toolbox@1.0.0', pattern: 'x' } });
    expect(denied.isError).toBe(true);
    expect(denied.structuredContent).toMatchObject({ code: 'FORBIDDEN' });
    const invalid = await client.callTool({ name: 'list', arguments: { target: 'npm:toolbox', limit: 0 } });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('bounds a list by its wait_timeout_ms: a registry that does not answer gives TIMEOUT after the wait and the grace', async () => {
    const client = await connect(await h.token('agent'));
    const started = performance.now();
    const held = await client.callTool({ name: 'list', arguments: { target: 'npm:slowpoke@1.0.0', wait_timeout_ms: 1_000 } });
    const elapsed = performance.now() - started;
    expect(held.isError).toBe(true);
    expect(held.structuredContent).toMatchObject({ status: 504, code: 'TIMEOUT' });
    expect((held.structuredContent as { detail: string }).detail).toContain('npm:slowpoke@1.0.0');
    // Not before the wait and the grace (the registry still holds the lookup), and not at the
    // registry client's own timeouts (15 s and a retry) either.
    expect(elapsed).toBeGreaterThanOrEqual(1_000 + GRACE_MS - 50);
    expect(elapsed).toBeLessThan(15_000);
    expect(h.registry.requests.some((p) => p.startsWith('/slowpoke'))).toBe(true);
  });

  it('answers an unknown tool with the JSON-RPC error for invalid params, not a tool result', async () => {
    const client = await connect(await h.token('agent'));
    const error = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain('no_such_tool');
  });

  it('gives a JSON document (CycloneDX) as {media_type, document} too', async () => {
    const token = await h.token('agent');
    const client = await connect(token);
    const submitted = await call<JobSnapshot>(client, 'submit_lockfile_job', { format: 'cyclonedx', files: SMALL_NPM() });
    await new SseClient(`${base}${JOBS_PATH}/${submitted.id}/events`, token).ended;
    const result = await call<{ media_type: string; document: string }>(client, 'lockfile_job_result', { id: submitted.id });
    expect(Object.keys(result).sort()).toEqual(['document', 'media_type']);
    expect(result.media_type).toBe('application/vnd.cyclonedx+json; version=1.7');
    expect(JSON.parse(result.document)).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.7' });
  });

  it('is behind bearer authentication, and has no sessions to open', async () => {
    const anonymous = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
    const token = await h.token('agent');
    const get = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });
});
