import { syntaxError } from '../../model/safe-parse.js';
import { isAtom, isMap, isTuple, keyword, nameOf, parseTerm, type Term } from './terms.js';

/**
 * `mix.lock`: a map from each dependency's app name to how it was locked —
 * `{:hex, :package, "version", "inner checksum", [build tools], [dependencies], "repo", "outer checksum"}`
 * (older locks stop after fewer fields) or `{:git, "url", "commit", [branch:/tag:/ref:]}`. A hex
 * dependency is `{:app, "requirement", [hex: :package, repo: "hexpm", optional: bool]}`.
 */

export interface LockDependency {
  readonly app: string;
  readonly requirement: string | null;
  readonly optional: boolean;
}

export type LockEntry =
  | { readonly kind: 'hex'; readonly app: string; readonly name: string; readonly version: string; readonly repo: string; readonly outerChecksum: string | null; readonly dependencies: readonly LockDependency[] }
  | { readonly kind: 'git'; readonly app: string; readonly url: string; readonly commit: string; readonly ref: string | null };

function dependencyOf(t: Term): LockDependency | null {
  if (!isTuple(t)) return null;
  const app = nameOf(t.tuple[0]);
  if (app === null) return null;
  const requirement = typeof t.tuple[1] === 'string' ? t.tuple[1] : null;
  return { app, requirement, optional: keyword(t.tuple[2], 'optional') === true };
}

export function parseMixLock(path: string, text: string): LockEntry[] {
  const doc = parseTerm(path, text);
  if (!isMap(doc)) throw syntaxError(path, 'not a map of locked dependencies');
  const entries: LockEntry[] = [];
  for (const [key, value] of doc.map) {
    const app = nameOf(key);
    if (app === null || !isTuple(value)) continue;
    const [kind, ...rest] = value.tuple;
    if (isAtom(kind) && kind.atom === 'hex') {
      const name = nameOf(rest[0]);
      const version = typeof rest[1] === 'string' ? rest[1] : null;
      if (name === null || version === null) continue;
      const deps = Array.isArray(rest[4]) ? rest[4].map(dependencyOf).filter((d): d is LockDependency => d !== null) : [];
      entries.push({ kind: 'hex', app, name, version, repo: typeof rest[5] === 'string' ? rest[5] : 'hexpm', outerChecksum: typeof rest[6] === 'string' ? rest[6] : null, dependencies: deps });
    } else if (isAtom(kind) && kind.atom === 'git') {
      const url = typeof rest[0] === 'string' ? rest[0] : null;
      const commit = typeof rest[1] === 'string' ? rest[1] : null;
      if (url === null || commit === null) continue;
      const opts = rest[2];
      const ref = nameOf(keyword(opts, 'tag')) ?? nameOf(keyword(opts, 'branch')) ?? nameOf(keyword(opts, 'ref'));
      entries.push({ kind: 'git', app, url, commit, ref });
    }
  }
  return entries;
}
