import { StringDecoder } from 'node:string_decoder';
import type { MessagePort } from 'node:worker_threads';
import { clock } from './budget-pool.js';

/** The body arrives on the run's port as it is received (chunks, then 'end'), never as one copy. */
export type JsonTask = Record<string, never>;

/** What a JSON thread says first on its port: it listens for the body's chunks. */
export const JSON_READY = 'ready';
export const JSON_END = 'end';

export type JsonParsed = { readonly ok: true; readonly value: unknown; readonly big?: readonly BigString[] } | { readonly ok: false; readonly reason: 'empty' | 'invalid' };

/** A long string taken out of a parsed value (left '' there), sent as `pieces` messages before the result. */
export interface BigString {
  readonly path: readonly (string | number)[];
  readonly pieces: number;
}

/** One piece of a long string on its way to the main thread; the main thread answers JSON_NEXT for the next. */
export interface JsonPiece {
  readonly piece: string;
}

export const JSON_NEXT = 'next';
/** Longest string piece a message carries: copying one costs the main thread a few ms at most. */
const PIECE_CHARS = 1024 * 1024;

/**
 * JSON text to a value as Fastify's default parser takes it: `__proto__` keys and `constructor`
 * objects holding a `prototype` are refused (prototype poisoning), as its secure-json-parse does.
 */
export function parseJsonBody(body: Uint8Array): JsonParsed {
  return parseJsonText(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
}

function parseJsonText(text: string): JsonParsed {
  if (text.trim() === '') return { ok: false, reason: 'empty' };
  try {
    return {
      ok: true,
      value: JSON.parse(text, (key, value: unknown) => {
        if (key === '__proto__') throw new SyntaxError('forbidden prototype property');
        if (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value) throw new SyntaxError('forbidden prototype property');
        return value;
      }) as unknown,
    };
  } catch {
    return { ok: false, reason: 'invalid' };
  }
}

/** Strings longer than a piece in a parsed value (objects and arrays a few levels deep), each replaced by ''. */
function longStrings(value: unknown, path: (string | number)[], depth: number): { path: (string | number)[]; text: string }[] {
  if (depth > 8 || typeof value !== 'object' || value === null) return [];
  const found: { path: (string | number)[]; text: string }[] = [];
  const holder = value as Record<string | number, unknown>;
  for (const key of Array.isArray(value) ? value.keys() : Object.keys(value)) {
    const child = holder[key];
    if (typeof child === 'string' && child.length > PIECE_CHARS) {
      found.push({ path: [...path, key], text: child });
      holder[key] = '';
    } else found.push(...longStrings(child, [...path, key], depth + 1));
  }
  return found;
}

/** A JSON thread's task: one large request body, received chunk by chunk, parsed off the API's event loop. */
export default async function parseJson(task: JsonTask & { port: MessagePort }): Promise<JsonParsed> {
  // Each chunk is decoded as it arrives and let go: the body is held once, as text, not also as
  // its bytes and their concatenation (three copies of a 56 MiB body per parse).
  const decoder = new StringDecoder('utf8');
  let text = '';
  const acks: (() => void)[] = [];
  try {
    await new Promise<void>((resolve) => {
      task.port.on('message', (message: unknown) => {
        if (message === JSON_END) resolve();
        else if (message === JSON_NEXT) acks.shift()?.();
        else if (message instanceof Uint8Array) text += decoder.write(message);
      });
      task.port.postMessage(JSON_READY);
    });
    text += decoder.end();
    // The budget counts the parse, not the client's upload.
    clock(task.port, true);
    const parsed = parseJsonText(text);
    text = '';
    if (!parsed.ok) return parsed;
    // Long strings go over piece by piece, each answered before the next: one result holding
    // them all is copied on the main thread in one go (a second for a 28 MiB file when loaded).
    const big: BigString[] = [];
    for (const { path, text } of longStrings(parsed.value, [], 0)) {
      let pieces = 0;
      for (let at = 0; at < text.length; at += PIECE_CHARS, pieces++) {
        await new Promise<void>((resolve) => {
          acks.push(resolve);
          task.port.postMessage({ piece: text.slice(at, at + PIECE_CHARS) } satisfies JsonPiece);
        });
      }
      big.push({ path, pieces });
    }
    return { ok: true, value: parsed.value, big };
  } finally {
    task.port.close();
  }
}
