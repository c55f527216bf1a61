import type { LockEntry } from './mix-lock.js';

/**
 * `rebar.lock` (Erlang terms): `{"1.2.0", [{<<"app">>, {pkg, <<"package">>, <<"version">>}, Level},
 * {<<"app">>, {git, "url", {ref, "commit"}}, Level}]}. [{pkg_hash, [{<<"app">>, <<"HASH">>}]}, …].`
 * and the older bare list. Read by pattern (the entries have one fixed shape), never evaluated.
 */
export function parseRebarLock(text: string): LockEntry[] {
  const entries: LockEntry[] = [];
  const hashes = new Map<string, string>();
  const hashSection = /\{pkg_hash_ext\s*,\s*\[([\s\S]*?)\]\}/.exec(text)?.[1] ?? /\{pkg_hash\s*,\s*\[([\s\S]*?)\]\}/.exec(text)?.[1] ?? '';
  for (const m of hashSection.matchAll(/\{<<"([^"]+)">>\s*,\s*<<"([0-9A-Fa-f]+)">>\}/g)) hashes.set(m[1] ?? '', (m[2] ?? '').toLowerCase());
  for (const m of text.matchAll(/\{<<"([^"]+)">>\s*,\s*\{pkg\s*,\s*<<"([^"]+)">>\s*,\s*<<"([^"]+)">>(?:\s*,\s*[^}]*)?\}\s*,\s*(\d+)\}/g)) {
    const app = m[1] ?? '';
    entries.push({ kind: 'hex', app, name: m[2] ?? app, version: m[3] ?? '', repo: 'hexpm', outerChecksum: hashes.get(app) ?? null, dependencies: [] });
  }
  for (const m of text.matchAll(/\{<<"([^"]+)">>\s*,\s*\{git\s*,\s*"([^"]+)"\s*,\s*\{(ref|tag|branch)\s*,\s*"([^"]+)"\}\}\s*,\s*(\d+)\}/g)) {
    entries.push({ kind: 'git', app: m[1] ?? '', url: m[2] ?? '', commit: m[4] ?? '', ref: m[3] === 'ref' ? null : (m[4] ?? null) });
  }
  return entries;
}
