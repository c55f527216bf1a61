import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions } from '../../src/db/schema/index.js';
import { cleanAttribution, parseSessionHeader } from '../../src/http/attribution.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/logs.js';
import { probeRoutes } from './probe-routes.js';

let t: TestApp;
let token: string;
const logs = captureLogs();

beforeAll(async () => {
  t = await startTestApp({ deps: { v1Routes: [probeRoutes], logger: logs.logger } });
  token = await t.token('attributed');
});
afterAll(() => t.close());

const get = (headers: Record<string, string | string[]>) =>
  t.app.inject({ method: 'GET', url: '/v1/probe', headers: { authorization: `Bearer ${token}`, ...headers } });

async function sessionRow(sessionId: string) {
  const rows = await t.database.db.select().from(sessions).where(eq(sessions.sessionId, sessionId));
  return rows[0];
}

describe('attribution values', () => {
  it('keeps trimmed printable ASCII within the byte limit and drops anything else', () => {
    expect(cleanAttribution(['  agent-x  '], 80)).toBe('agent-x');
    expect(cleanAttribution(['a'.repeat(80)], 80)).toBe('a'.repeat(80));
    expect(cleanAttribution(['a'.repeat(81)], 80)).toBeNull();
    expect(cleanAttribution([` ${'a'.repeat(80)} `], 80)).toBe('a'.repeat(80));
    expect(cleanAttribution(['a'.repeat(160)], 160)).toBe('a'.repeat(160));
    expect(cleanAttribution(['a'.repeat(161)], 160)).toBeNull();
    expect(cleanAttribution(['tab\tinside'], 80)).toBeNull();
    expect(cleanAttribution(['bell\x07'], 80)).toBeNull();
    expect(cleanAttribution(['caf\u00e9'], 80)).toBeNull();
    expect(cleanAttribution(['   '], 80)).toBeNull();
    expect(cleanAttribution(['a', 'b'], 80)).toBeNull();
    expect(cleanAttribution(undefined, 80)).toBeNull();
  });

  it('validates the session id: pattern, length, repetition', () => {
    expect(parseSessionHeader(undefined)).toEqual({ ok: true, sessionId: null });
    expect(parseSessionHeader(['A-b_9'])).toEqual({ ok: true, sessionId: 'A-b_9' });
    expect(parseSessionHeader(['x'.repeat(64)])).toEqual({ ok: true, sessionId: 'x'.repeat(64) });
    for (const bad of [['x'.repeat(65)], [''], ['a b'], ['a,b'], ['a.b'], ['a', 'a']]) {
      expect(parseSessionHeader(bad)).toEqual({ ok: false });
    }
  });
});

describe('sessions', () => {
  it('upserts one row per (account, session id) with counts and the latest attribution', async () => {
    const first = await get({
      'x-service-session-id': 'Sess_1-a',
      'x-service-client-name': '  my-client  ',
      'x-service-client-version': '1.2.3',
      'x-service-agent': 'agent/1',
    });
    expect(first.statusCode).toBe(200);
    const created = await sessionRow('Sess_1-a');
    expect(created).toMatchObject({ requestCount: 1, clientName: 'my-client', clientVersion: '1.2.3', agent: 'agent/1' });

    await get({ 'x-service-session-id': 'Sess_1-a', 'x-service-client-version': '1.2.4' });
    await get({ 'x-service-session-id': 'Sess_1-a', 'x-service-client-name': 'x'.repeat(81) });
    const updated = await sessionRow('Sess_1-a');
    expect(updated).toMatchObject({ requestCount: 3, clientName: 'my-client', clientVersion: '1.2.4', agent: 'agent/1' });
    expect(updated!.lastSeenAt.getTime()).toBeGreaterThanOrEqual(created!.firstSeenAt.getTime());
    expect(updated!.firstSeenAt).toEqual(created!.firstSeenAt);
  });

  it('keeps sessions of different accounts apart', async () => {
    const other = await t.token('someone-else');
    await t.app.inject({
      method: 'GET',
      url: '/v1/probe',
      headers: { authorization: `Bearer ${other}`, 'x-service-session-id': 'shared' },
    });
    await get({ 'x-service-session-id': 'shared' });
    const rows = await t.database.db.select().from(sessions).where(eq(sessions.sessionId, 'shared'));
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.requestCount === 1)).toBe(true);
  });

  it.each([
    ['invalid characters', { 'x-service-session-id': 'bad id!' }],
    ['too long', { 'x-service-session-id': 's'.repeat(65) }],
    ['two header lines', { 'x-service-session-id': ['dup-a', 'dup-b'] }],
    ['the same value twice', { 'x-service-session-id': ['dup-c', 'dup-c'] }],
    ['a comma-joined value', { 'x-service-session-id': 'dup-d, dup-e' }],
  ])('rejects %s with 400 INVALID_SESSION_ID and writes no session', async (_name, headers) => {
    const before = await t.database.db.select().from(sessions);
    const res = await get(headers);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_SESSION_ID', instance: res.headers['x-request-id'] });
    expect(await t.database.db.select().from(sessions)).toHaveLength(before.length);
  });

  it('creates no session for an unauthenticated request', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/probe', headers: { 'x-service-session-id': 'anon' } });
    expect(res.statusCode).toBe(401);
    const rows = await t.database.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.sessionId, 'anon')));
    expect(rows).toHaveLength(0);
  });
});

describe('request log line', () => {
  it('carries request id, account, session and attribution, and never the token', async () => {
    const res = await get({
      'x-service-session-id': 'logged',
      'x-service-client-name': 'log-client',
      'x-service-client-version': '9',
      'x-service-agent': 'bot',
    });
    const line = logs.lines().find((l) => l['reqId'] === res.headers['x-request-id']);
    expect(line).toMatchObject({
      msg: 'request completed',
      account: 'attributed',
      session: 'logged',
      client: { name: 'log-client', version: '9', agent: 'bot' },
      res: { statusCode: 200 },
    });
    expect(logs.text()).not.toContain(token);
  });
});
