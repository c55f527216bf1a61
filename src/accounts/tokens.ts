import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.js';
import { accounts, apiTokens } from '../db/schema/index.js';
import { CAPABILITIES, type Capability, isCapability } from './capabilities.js';

/** Tokens look like `pks_<43 base64url characters>`: 256 random bits. */
const TOKEN_PREFIX = 'pks_';

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function displayPrefix(token: string): string {
  return token.slice(0, TOKEN_PREFIX.length + 6);
}

export interface Principal {
  readonly accountId: string;
  readonly accountName: string;
  readonly tokenId: string;
  readonly capabilities: readonly Capability[];
  readonly termsAccepted: boolean;
}

export interface EnsureAccountOptions {
  /** Replaces the account's capabilities when given; a new account otherwise gets all of them. */
  readonly capabilities?: readonly Capability[];
  /** Records terms acceptance now (true) or clears it (false); left as is when undefined. */
  readonly termsAccepted?: boolean;
}

/** Creates the account when missing; applies the given capabilities and terms state. */
export async function ensureAccount(db: Queryable, name: string, options: EnsureAccountOptions = {}): Promise<string> {
  const capabilities = [...(options.capabilities ?? CAPABILITIES)];
  const termsAcceptedAt = options.termsAccepted === false ? null : sql`now()`;
  const [created] = await db
    .insert(accounts)
    .values({ name, capabilities, termsAcceptedAt })
    .onConflictDoNothing({ target: accounts.name })
    .returning({ id: accounts.id });
  if (created) return created.id;
  const [existing] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.name, name));
  if (!existing) throw new Error(`account ${name} vanished while being created`);
  if (options.capabilities) {
    await db.update(accounts).set({ capabilities }).where(eq(accounts.id, existing.id));
  }
  if (options.termsAccepted !== undefined) {
    const accepted = options.termsAccepted ? sql`coalesce(${accounts.termsAcceptedAt}, now())` : null;
    await db.update(accounts).set({ termsAcceptedAt: accepted }).where(eq(accounts.id, existing.id));
  }
  return existing.id;
}

export interface CreatedToken {
  readonly id: string;
  readonly token: string;
  readonly accountId: string;
}

/** Stores the hash of `token` (a fresh random one unless given) for the account. */
export async function createToken(
  db: Database,
  accountId: string,
  options: { readonly token?: string; readonly label?: string } = {},
): Promise<CreatedToken> {
  const token = options.token ?? generateToken();
  const [row] = await db
    .insert(apiTokens)
    .values({ accountId, tokenHash: hashToken(token), displayPrefix: displayPrefix(token), label: options.label ?? null })
    .returning({ id: apiTokens.id });
  if (!row) throw new Error('token insert returned no row');
  return { id: row.id, token, accountId };
}

/**
 * Makes sure `token` authenticates as the account `default` with every capability
 * (AUTH_BOOTSTRAP_TOKEN). A revoked bootstrap token is reinstated: the operator asked for it.
 */
export async function ensureBootstrapToken(db: Database, token: string): Promise<void> {
  await db.transaction(async (tx) => {
    const accountId = await ensureAccount(tx, 'default', { capabilities: CAPABILITIES, termsAccepted: true });
    const tokenHash = hashToken(token);
    await tx
      .insert(apiTokens)
      .values({ accountId, tokenHash, displayPrefix: displayPrefix(token), label: 'AUTH_BOOTSTRAP_TOKEN' })
      .onConflictDoUpdate({ target: apiTokens.tokenHash, set: { accountId, revokedAt: null } });
  });
}

/** The principal a token authenticates, or null for an unknown or revoked token. */
export async function findPrincipal(db: Database, token: string): Promise<Principal | null> {
  const [row] = await db
    .select({
      tokenId: apiTokens.id,
      accountId: accounts.id,
      accountName: accounts.name,
      capabilities: accounts.capabilities,
      termsAcceptedAt: accounts.termsAcceptedAt,
    })
    .from(apiTokens)
    .innerJoin(accounts, eq(accounts.id, apiTokens.accountId))
    .where(and(eq(apiTokens.tokenHash, hashToken(token)), isNull(apiTokens.revokedAt)));
  if (!row) return null;
  return {
    tokenId: row.tokenId,
    accountId: row.accountId,
    accountName: row.accountName,
    capabilities: row.capabilities.filter(isCapability),
    termsAccepted: row.termsAcceptedAt !== null,
  };
}

export interface TokenListing {
  readonly id: string;
  readonly account: string;
  readonly prefix: string;
  readonly label: string | null;
  readonly capabilities: readonly string[];
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

export async function listTokens(db: Database, accountName?: string): Promise<TokenListing[]> {
  const rows = await db
    .select({
      id: apiTokens.id,
      account: accounts.name,
      prefix: apiTokens.displayPrefix,
      label: apiTokens.label,
      capabilities: accounts.capabilities,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      revokedAt: apiTokens.revokedAt,
    })
    .from(apiTokens)
    .innerJoin(accounts, eq(accounts.id, apiTokens.accountId))
    .where(accountName === undefined ? undefined : eq(accounts.name, accountName))
    .orderBy(asc(accounts.name), asc(apiTokens.createdAt));
  return rows;
}

/** Revokes a token by id or by its displayed prefix; returns how many tokens it revoked. */
export async function revokeToken(db: Database, idOrPrefix: string): Promise<number> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrPrefix);
  const match = isUuid ? eq(apiTokens.id, idOrPrefix) : eq(apiTokens.displayPrefix, idOrPrefix);
  const matching = await db.select({ id: apiTokens.id }).from(apiTokens).where(match);
  if (matching.length > 1) {
    throw new Error(`${idOrPrefix} matches ${matching.length} tokens; revoke by id (see \`pkgscope tokens list\`)`);
  }
  const revoked = await db
    .update(apiTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(match, isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
  return revoked.length;
}

/**
 * Writes `last_used_at` at most once a minute per token: an in-process clock skips most writes,
 * and the SQL condition keeps several API processes from each writing within the minute.
 */
export class TokenUsageRecorder {
  private readonly lastWrite = new Map<string, number>();
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
    private readonly intervalMs = 60_000,
  ) {}

  async record(tokenId: string): Promise<void> {
    const now = this.now();
    const last = this.lastWrite.get(tokenId);
    if (last !== undefined && now - last < this.intervalMs) return;
    this.lastWrite.set(tokenId, now);
    if (this.lastWrite.size > 10_000) this.prune(now);
    await this.db
      .update(apiTokens)
      .set({ lastUsedAt: sql`now()` })
      .where(
        and(
          eq(apiTokens.id, tokenId),
          sql`(${apiTokens.lastUsedAt} IS NULL OR ${apiTokens.lastUsedAt} < now() - make_interval(secs => ${this.intervalMs / 1000}))`,
        ),
      );
  }

  private prune(now: number): void {
    for (const [id, at] of this.lastWrite) if (now - at >= this.intervalMs) this.lastWrite.delete(id);
  }
}
