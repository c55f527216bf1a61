import type { Inventory, Occurrence, OccurrenceSource } from '../../model/model.js';
import { INPUT_LIMITS, limitExceeded } from '../../model/safe-parse.js';
import type { FileProblem } from '../../model/types.js';
import { GraphBuilder, hexIntegrity } from '../shared/builder.js';
import { isPlatform } from './detect.js';
import { isRecord, licenseOf, links, readJson, text, type ComposerManifest } from './manifest.js';

/**
 * composer.lock: every entry of `packages` (what ships) and `packages-dev` (dev) is one occurrence,
 * with its version as recorded (`v1.2.6` stays; `version_normalized` kept as a fact), the dist
 * shasum (sha1) as integrity and the lock's own license. Edges follow each entry's `require` (its
 * `require-dev` is never installed) to the exact entry, names compared case-insensitively; a name
 * no entry has but one entry `replace`s or `provide`s resolves to that entry (every such entry for
 * a virtual package like `psr/log-implementation`: any of them satisfies it). Platform
 * requirements (`php`, `ext-*`, …) are never components: the lock's `platform`/`platform-dev` are
 * kept as declarations. The project's own requirements come from composer.json. `conflict` only
 * forbids versions and `suggest` installs nothing: neither is an edge.
 */

export interface LockContext {
  readonly manifest: ComposerManifest | null;
  /** The project's name when composer.json does not give one (its folder). */
  readonly fallbackName: string;
}

export type LockRead = { readonly ok: true; readonly inventory: Inventory } | { readonly ok: false; readonly problem: FileProblem };

/** Composer's BasePackage::STABILITIES, as `stability-flags` records them. */
const STABILITY: Readonly<Record<number, string>> = { 0: 'stable', 5: 'RC', 10: 'beta', 15: 'alpha', 20: 'dev' };

const PACKAGIST = /^https?:\/\/(repo\.)?packagist\.org\//;

interface Entry {
  readonly doc: Record<string, unknown>;
  readonly name: string;
  readonly dev: boolean;
}

function sourceOf(doc: Record<string, unknown>): { source: OccurrenceSource; resolved: string | null; facts: Record<string, string> } {
  const dist = isRecord(doc['dist']) ? doc['dist'] : {};
  const src = isRecord(doc['source']) ? doc['source'] : {};
  const distUrl = text(dist['url']);
  const srcUrl = text(src['url']);
  const reference = text(src['reference']) ?? text(dist['reference']);
  const notification = text(doc['notification-url']);
  if (dist['type'] === 'path' || src['type'] === 'path') return { source: 'file', resolved: distUrl ?? srcUrl, facts: {} };
  if (notification !== null && PACKAGIST.test(notification)) return { source: 'registry', resolved: distUrl, facts: {} };
  // Not from Packagist: a VCS repository's package is its commit; another repository's an archive.
  if (srcUrl !== null && ['git', 'hg', 'svn'].includes(String(src['type']))) {
    return { source: 'git', resolved: `${src['type'] === 'git' ? 'git+' : `${String(src['type'])}+`}${srcUrl}${reference === null ? '' : `@${reference}`}`, facts: {} };
  }
  const repository = notification === null || !URL.canParse(notification) ? null : new URL(notification).origin;
  if (distUrl !== null) return { source: 'tarball', resolved: distUrl, facts: repository === null ? {} : { repository } };
  return { source: 'registry', resolved: null, facts: {} };
}

function entriesOf(path: string, doc: Record<string, unknown>): Entry[] | FileProblem {
  const out: Entry[] = [];
  for (const [key, dev] of [['packages', false], ['packages-dev', true]] as const) {
    const list = doc[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) return { path, reason: 'malformed', message: `"${key}" is not an array` };
    for (const [i, item] of list.entries()) {
      const name = isRecord(item) ? text(item['name']) : null;
      if (!isRecord(item) || name === null || typeof item['version'] !== 'string') return { path, reason: 'malformed', message: `${key}[${i}] has no name and version`, ...(name === null ? {} : { package: name }) };
      out.push({ doc: item, name, dev });
    }
  }
  if (out.length > INPUT_LIMITS.maxEntries) throw limitExceeded(path, 'maxEntries');
  return out;
}

export function parseComposerLock(path: string, content: string, ctx: LockContext): LockRead {
  const read = readJson(path, content);
  if (!read.ok) return read;
  if (!isRecord(read.value)) return { ok: false, problem: { path, reason: 'malformed', message: 'composer.lock is not a JSON object' } };
  const doc = read.value;
  const entries = entriesOf(path, doc);
  if (!Array.isArray(entries)) return { ok: false, problem: entries };

  const b = new GraphBuilder(path, 'composer', (n) => n.toLowerCase());
  const aliases = new Map<string, string>();
  for (const a of Array.isArray(doc['aliases']) ? doc['aliases'] : []) {
    if (isRecord(a) && typeof a['package'] === 'string' && typeof a['alias'] === 'string') aliases.set(a['package'].toLowerCase(), a['alias']);
  }
  const stability = isRecord(doc['stability-flags']) ? doc['stability-flags'] : {};
  const byEntry = new Map<Entry, Occurrence>();
  for (const e of entries) {
    const { source, resolved, facts } = sourceOf(e.doc);
    const dist = isRecord(e.doc['dist']) ? e.doc['dist'] : {};
    const type = text(e.doc['type']);
    if (type !== null && type !== 'library') facts['type'] = type;
    const normalized = text(e.doc['version_normalized']);
    if (normalized !== null) facts['version_normalized'] = normalized;
    const alias = aliases.get(e.name.toLowerCase());
    if (alias !== undefined) facts['alias'] = alias;
    const key = e.name.toLowerCase();
    const flag = stability[key];
    if (typeof flag === 'number') facts['stability'] = STABILITY[flag] ?? String(flag);
    const o = b.add(key, {
      name: e.name,
      version: String(e.doc['version']),
      source,
      resolved,
      integrity: hexIntegrity('sha1', typeof dist['shasum'] === 'string' ? dist['shasum'] : null),
      license: licenseOf(e.doc['license']),
      dev: e.dev,
      facts,
    });
    byEntry.set(e, o);
  }
  // Names satisfied by another entry's `replace` or `provide`.
  const providers = new Map<string, Occurrence[]>();
  for (const [e, o] of byEntry) {
    for (const name of [...Object.keys(links(e.doc['replace'])), ...Object.keys(links(e.doc['provide']))]) {
      const list = providers.get(name.toLowerCase()) ?? [];
      if (!list.includes(o)) list.push(o);
      providers.set(name.toLowerCase(), list);
    }
  }
  const resolve = (name: string): readonly Occurrence[] => {
    const own = b.get(name.toLowerCase());
    return own === undefined ? (providers.get(name.toLowerCase()) ?? []) : [own];
  };
  const missing = new Set<string>();
  const link = (from: Occurrence, requires: Record<string, string>, kind: 'prod' | 'dev'): void => {
    for (const [name, range] of Object.entries(requires)) {
      if (isPlatform(name)) continue;
      const found = resolve(name);
      if (found.length === 0) missing.add(name);
      for (const to of found) b.edge(from, to, kind, range);
    }
  };
  for (const [e, o] of byEntry) link(o, links(e.doc['require']), 'prod');

  const { manifest } = ctx;
  // The content-hash ties the lock to the composer.json it was written from: kept on the project.
  const contentHash = text(doc['content-hash']);
  const root = b.root('', {
    name: manifest?.name ?? ctx.fallbackName,
    version: manifest?.version ?? null,
    license: manifest?.license ?? null,
    installPath: '',
    facts: contentHash === null ? {} : { content_hash: contentHash },
  });
  if (manifest !== null) {
    link(root, manifest.require, 'prod');
    link(root, manifest.requireDev, 'dev');
    b.covers(manifest.path);
  } else {
    // Without composer.json the project's requirements are not recorded: the entries nothing else
    // requires are what it asked for.
    const all = [...byEntry.values()];
    const required = new Set(all.flatMap((o) => o.dependencies.map((d) => d.ref)));
    for (const o of all) if (!required.has(o.ref)) b.edge(root, o, o.dev ? 'dev' : 'prod');
  }
  for (const [kind, map] of [['platform', links(doc['platform'])], ['platform-dev', links(doc['platform-dev'])]] as const) {
    for (const [name, range] of Object.entries(map)) b.unresolved({ manifest: manifest?.path ?? path, name, range, kind, ecosystem: 'composer', provided: true });
  }
  if (missing.size > 0) b.notice(`${path} requires ${[...missing].sort().join(', ')}, which no entry provides`);
  // The lock's shape is Composer 2's; a later major plugin API may have changed it: said, then read as 2.
  const api = text(doc['plugin-api-version']);
  const major = api === null ? null : Number.parseInt(api, 10);
  if (major !== null && major > 2) b.notice(`${path}: composer.lock of plugin API ${api} is newer than this reader knows; it was read as Composer 2 writes it`);
  return { ok: true, inventory: b.finish({ kind: 'composer.lock', version: api, scopes: 'recorded' }) };
}
