import { parseArgs } from 'node:util';
import { parseCapabilities } from '../accounts/capabilities.js';
import { createToken, ensureAccount, listTokens, revokeToken } from '../accounts/tokens.js';
import type { Database } from '../db/client.js';
import { TOKENS_USAGE, UsageError, type CommandIo } from './usage.js';

/** Where the tokens live (a redacted database URL): a token made in another database authenticates nowhere. */
export interface TokenStore {
  readonly where: string;
}


/**
 * At most a few characters of a token, whatever was stored: a generated token (`pks_` and 256
 * random bits) shows six of its random characters, any other (a bootstrap token may be short) three.
 */
export function shownPrefix(prefix: string): string {
  return prefix.startsWith('pks_') ? prefix.slice(0, 10) : `${prefix.slice(0, 3)}…`;
}

/** `pkgscope tokens …`; returns the process exit code. */
export async function tokensCommand(db: Database, argv: readonly string[], io: CommandIo, store: TokenStore = { where: 'the database' }): Promise<number> {
  const [action, ...rest] = argv;
  switch (action) {
    case 'create': {
      const { values } = parseArgs({
        args: [...rest],
        options: {
          account: { type: 'string' },
          capabilities: { type: 'string' },
          label: { type: 'string' },
          terms: { type: 'string' },
        },
        strict: true,
      });
      if (values.account === undefined || values.account.trim() === '') throw new UsageError('--account is required');
      if (values.terms !== undefined && values.terms !== 'accepted' && values.terms !== 'pending') {
        throw new UsageError('--terms must be accepted or pending');
      }
      let capabilities;
      try {
        capabilities = values.capabilities === undefined ? undefined : parseCapabilities(values.capabilities);
      } catch (error) {
        throw new UsageError(error instanceof Error ? error.message : String(error));
      }
      const accountId = await ensureAccount(db, values.account.trim(), {
        ...(capabilities === undefined ? {} : { capabilities }),
        ...(values.terms === undefined ? {} : { termsAccepted: values.terms === 'accepted' }),
      });
      const created = await createToken(db, accountId, values.label === undefined ? {} : { label: values.label });
      io.err(`token ${created.id} created for account "${values.account.trim()}" in ${store.where} (the service must use this DATABASE_URL); it is shown once:`);
      io.out(created.token);
      return 0;
    }
    case 'list': {
      const { values } = parseArgs({
        args: [...rest],
        options: { account: { type: 'string' }, json: { type: 'boolean', default: false } },
        strict: true,
      });
      const tokens = (await listTokens(db, values.account)).map((t) => ({ ...t, prefix: shownPrefix(t.prefix) }));
      if (values.json) {
        io.out(JSON.stringify(tokens, null, 2));
        return 0;
      }
      io.out(['ID', 'ACCOUNT', 'PREFIX', 'CAPABILITIES', 'CREATED', 'LAST USED', 'REVOKED', 'LABEL'].join('\t'));
      for (const t of tokens) {
        io.out(
          [
            t.id,
            t.account,
            t.prefix,
            t.capabilities.join(','),
            t.createdAt.toISOString(),
            t.lastUsedAt?.toISOString() ?? '-',
            t.revokedAt?.toISOString() ?? '-',
            t.label ?? '',
          ].join('\t'),
        );
      }
      return 0;
    }
    case 'revoke': {
      const target = rest[0];
      if (target === undefined || rest.length !== 1) throw new UsageError('revoke takes one token id or prefix');
      const count = await revokeToken(db, target);
      if (count === 0) {
        io.err(`no active token matches ${target}`);
        return 1;
      }
      io.err(`revoked ${target}`);
      return 0;
    }
    default:
      throw new UsageError(TOKENS_USAGE);
  }
}
