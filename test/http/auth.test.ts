import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBootstrapToken, findPrincipal, revokeToken, type Principal } from '../../src/accounts/tokens.js';
import { PrincipalCache } from '../../src/http/auth.js';
import { accounts, apiTokens } from '../../src/db/schema/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes } from './probe-routes.js';

let t: TestApp;
let clock = 1_000_000;

beforeAll(async () => {
  t = await startTestApp({ deps: { v1Routes: [probeRoutes], now: () => clock } });
});
afterAll(() => t.close());

const get = (headers: Record<string, string> = {}, url = '/v1/probe') => t.app.inject({ method: 'GET', url, headers });

describe('bearer authentication', () => {
  it('asks for a token when none is sent, without an error code', async () => {
    const res = await get();
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="pkgscope"');
    expect(res.json()).toMatchObject({ code: 'AUTHENTICATION_REQUIRED', instance: res.headers['x-request-id'] });
  });

  it('treats another scheme as no bearer credential', async () => {
    const res = await get({ authorization: 'Basic dXNlcjpwYXNz' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="pkgscope"');
  });

  it('answers invalid_token for unknown, malformed and revoked tokens', async () => {
    const token = await t.token('revokee');
    expect((await get({ authorization: `Bearer ${token}` })).statusCode).toBe(200);
    const principal = await findPrincipal(t.database.db, token);
    expect(await revokeToken(t.database.db, principal!.tokenId)).toBe(1);
    for (const value of [`Bearer ${token}`, 'Bearer pks_unknown', 'Bearer', 'Bearer a b', 'bearer ©']) {
      const res = await get({ authorization: value });
      expect(res.statusCode, value).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="pkgscope", error="invalid_token"');
      expect(res.json()).toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
    }
  });

  it('accepts the scheme case-insensitively', async () => {
    const token = await t.token('casey');
    expect((await get({ authorization: `bearer ${token}` })).statusCode).toBe(200);
  });

  it('stores only the SHA-256 hash of a token', async () => {
    const token = await t.token('hashed');
    const rows = await t.database.db.select({ hash: apiTokens.tokenHash }).from(apiTokens);
    expect(rows.some((r) => r.hash.includes(token))).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.hash))).toBe(true);
  });
});

describe('capabilities and terms', () => {
  it('answers 403 FORBIDDEN when the account lacks the route capability', async () => {
    const token = await t.token('lister', { capabilities: ['list'] });
    const res = await get({ authorization: `Bearer ${token}` });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'FORBIDDEN', instance: res.headers['x-request-id'] });
    const ok = await t.app.inject({
      method: 'POST',
      url: '/v1/probe',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'x' },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('requires terms acceptance when terms are configured, carrying the URLs', async () => {
    const terms = await startTestApp({
      env: { TERMS_URL: 'https://example.test/terms', TERMS_ACCEPTANCE_URL: 'https://example.test/accept' },
      deps: { v1Routes: [probeRoutes] },
    });
    try {
      const pending = await terms.token('pending', { termsAccepted: false });
      const res = await terms.app.inject({ method: 'GET', url: '/v1/probe', headers: { authorization: `Bearer ${pending}` } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'FORBIDDEN',
        terms_url: 'https://example.test/terms',
        acceptance_url: 'https://example.test/accept',
      });
      const accepted = await terms.token('accepted', { termsAccepted: true });
      const ok = await terms.app.inject({ method: 'GET', url: '/v1/probe', headers: { authorization: `Bearer ${accepted}` } });
      expect(ok.statusCode).toBe(200);
    } finally {
      await terms.close();
    }
  });

  it('does not require terms when none are configured', async () => {
    const token = await t.token('no-terms', { termsAccepted: false });
    expect((await get({ authorization: `Bearer ${token}` })).statusCode).toBe(200);
  });
});

describe('token usage', () => {
  it('writes last_used_at at most once a minute per token', async () => {
    const token = await t.token('usage');
    const { tokenId } = (await findPrincipal(t.database.db, token))!;
    const lastUsed = async () =>
      (await t.database.db.select({ at: apiTokens.lastUsedAt }).from(apiTokens).where(eq(apiTokens.id, tokenId)))[0]?.at;
    expect(await lastUsed()).toBeNull();

    await get({ authorization: `Bearer ${token}` });
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);

    // Pretend the write is two minutes old: within the in-process minute nothing is written.
    await t.database.db.execute(sql`UPDATE api_tokens SET last_used_at = now() - interval '2 minutes' WHERE id = ${tokenId}`);
    const aged = await lastUsed();
    clock += 30_000;
    await get({ authorization: `Bearer ${token}` });
    expect(await lastUsed()).toEqual(aged);

    clock += 31_000;
    await get({ authorization: `Bearer ${token}` });
    expect((await lastUsed())!.getTime()).toBeGreaterThan(aged!.getTime());
  });
});

describe('bootstrap token', () => {
  it('ensures account default with every capability and reinstates a revoked bootstrap token', async () => {
    const token = 'bootstrap-token-for-tests-0123456789';
    await ensureBootstrapToken(t.database.db, token);
    await ensureBootstrapToken(t.database.db, token);
    const principal = await findPrincipal(t.database.db, token);
    expect(principal).toMatchObject({ accountName: 'default', capabilities: ['list', 'read', 'sbom'], termsAccepted: true });
    await revokeToken(t.database.db, principal!.tokenId);
    expect(await findPrincipal(t.database.db, token)).toBeNull();
    await ensureBootstrapToken(t.database.db, token);
    expect(await findPrincipal(t.database.db, token)).not.toBeNull();
    const defaults = await t.database.db.select().from(accounts).where(eq(accounts.name, 'default'));
    expect(defaults).toHaveLength(1);
    expect(
      (await t.database.db.select().from(apiTokens).where(eq(apiTokens.accountId, defaults[0]!.id))).length,
    ).toBe(1);
  });
});

describe('the principal cache', () => {
  const principal: Principal = { tokenId: 't', accountId: 'a', accountName: 'n', capabilities: [], termsAccepted: true };

  it('looks a token up once for the requests that find it unknown or expired together', async () => {
    const cache = new PrincipalCache(60_000);
    let lookups = 0;
    let answer: (value: Principal | null) => void = () => undefined;
    const load = () => {
      lookups++;
      return new Promise<Principal | null>((resolve) => (answer = resolve));
    };
    const waiting = Array.from({ length: 100 }, () => cache.get('tok', load));
    expect(lookups).toBe(1);
    answer(principal);
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 100 }, () => principal));
    expect(cache.peek('tok')).toBe(principal);
    expect(await cache.get('tok', load)).toBe(principal);
    expect(lookups).toBe(1);
  });

  it('keeps no failed lookup: the next request asks again', async () => {
    const cache = new PrincipalCache(60_000);
    let lookups = 0;
    const failing = async (): Promise<Principal | null> => {
      lookups++;
      throw new Error('database down');
    };
    await expect(Promise.all([cache.get('tok', failing), cache.get('tok', failing)])).rejects.toThrow('database down');
    expect(lookups).toBe(1);
    expect(await cache.get('tok', async () => principal)).toBe(principal);
  });
});
