import { DrizzleQueryError } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { isStoreUnavailable, StoreUnavailableError } from '../../src/store-errors.js';

const coded = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });
const query = (cause: unknown): DrizzleQueryError => new DrizzleQueryError('select 1', [], cause as Error);

describe('store outage classification', () => {
  it.each([
    ['57P01 admin shutdown (restart, pg_terminate_backend)', query(coded('57P01'))],
    ['57P02 crash shutdown', query(coded('57P02'))],
    ['57P03 cannot connect now', coded('57P03')],
    ['08006 connection failure', query(coded('08006'))],
    ['a socket that closed under node-postgres', query(new Error('Connection terminated unexpectedly'))],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    ['Postgres refusing connections, under a failed query', query(coded('ECONNREFUSED'))],
    ['ioredis giving up on a command', Object.assign(new Error('Reached the max retries per request limit'), { name: 'MaxRetriesPerRequestError' })],
    ['a command on a closed Redis connection', new Error('Connection is closed.')],
    ['a subscription Redis did not confirm', new StoreUnavailableError('redis', 'not connected')],
  ])('counts %s', (_name, error) => {
    expect(isStoreUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', query(coded('23505'))],
    ['a registry that refuses connections', coded('ECONNREFUSED')],
    ['a bug', new TypeError('undefined is not a function')],
    ['a non-error', 'oops'],
  ])('does not count %s', (_name, error) => {
    expect(isStoreUnavailable(error)).toBe(false);
  });
});
