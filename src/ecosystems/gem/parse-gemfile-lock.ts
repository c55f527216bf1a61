import { INPUT_LIMITS, limitExceeded } from '../../model/safe-parse.js';
import type { FileProblem } from '../../model/types.js';

/**
 * Bundler's lockfile (`Gemfile.lock`, `gems.locked`) read into its sections, as Bundler's own
 * LockfileParser reads it: column-0 section names; in a source section (GIT, GEM, PATH, PLUGIN
 * SOURCE) 2-space `key: value` options and `specs:`, 4-space specs `name (version[-platform])`,
 * 6-space dependency lines `name (requirement, requirement)`; 2-space lines under PLATFORMS,
 * DEPENDENCIES (`name (reqs)!`, where `!` means from a non-GEM source), RUBY VERSION, BUNDLED WITH
 * and CHECKSUMS (Bundler 2.5+: `name (version[-platform]) sha256=<hex>`, only hashes, never
 * entries). Hand-written: no library reads this format, and it is line-oriented enough that a
 * small reader with line numbers for its problems is the whole job.
 */

export type LockSourceType = 'GEM' | 'GIT' | 'PATH' | 'PLUGIN SOURCE';

export interface LockDependency {
  readonly name: string;
  /** The requirement as written (`>= 1, < 3`); empty when none. */
  readonly requirement: string;
}

export interface LockSpec {
  readonly name: string;
  readonly version: string;
  /** Null for the generic `ruby` platform. */
  readonly platform: string | null;
  readonly dependencies: LockDependency[];
  readonly source: LockSource;
  readonly line: number;
}

export interface LockSource {
  readonly type: LockSourceType;
  /** `remote:` values (a GEM section of old Bundlers may list several). */
  readonly remotes: string[];
  /** revision, ref, branch, tag, glob, submodules, type (plugin sources) … */
  readonly options: Record<string, string>;
}

export interface GemfileLock {
  readonly specs: readonly LockSpec[];
  readonly platforms: readonly string[];
  /** DEPENDENCIES: what the Gemfile (and gemspec) asked for. */
  readonly dependencies: readonly (LockDependency & { readonly pinned: boolean })[];
  /** CHECKSUMS: `name (version[-platform])` → `sha256` hex. */
  readonly checksums: ReadonlyMap<string, string>;
  readonly rubyVersion: string | null;
  readonly bundledWith: string | null;
}

const SKIPPED = '(skipped)';
const SECTIONS = new Set(['GIT', 'GEM', 'PATH', 'PLUGIN SOURCE', 'PLATFORMS', 'DEPENDENCIES', 'RUBY VERSION', 'BUNDLED WITH', 'CHECKSUMS']);

/** Bundler's NAME_VERSION: a version never holds `-` (RubyGems writes `1.0.0.pre`), so the first `-` starts the platform. */
const NAME_VERSION = /^(\S+?)(?: \(([^-)\s]*)(?:-([^)]*))?\))?(!)?$/;
const DEPENDENCY = /^(\S+?)(?: \(([^)]*)\))?(!)?$/;

/** The key of a spec in CHECKSUMS and occurrence keys: `name (version[-platform])`. */
export function specKey(name: string, version: string, platform: string | null): string {
  return `${name} (${version}${platform === null ? '' : `-${platform}`})`;
}

export type LockRead = { readonly ok: true; readonly lock: GemfileLock } | { readonly ok: false; readonly problem: FileProblem };

export function parseGemfileLock(path: string, content: string): LockRead {
  const fail = (line: number, message: string): LockRead => ({ ok: false, problem: { path, reason: 'malformed', message, line } });
  const specs: LockSpec[] = [];
  const platforms: string[] = [];
  const dependencies: (LockDependency & { pinned: boolean })[] = [];
  const checksums = new Map<string, string>();
  let rubyVersion: string | null = null;
  let bundledWith: string | null = null;
  let section: string | null = null;
  let source: LockSource | null = null;
  let inSpecs = false;
  let spec: LockSpec | null = null;
  let known = false;

  const lines = content.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i] ?? '';
    // Over a documented bound the analysis fails (LimitExceededError), as for every format.
    if (raw.length > INPUT_LIMITS.maxLineLength) throw limitExceeded(path, 'maxLineLength', { line: n });
    if (raw.trim() === '') continue;
    if (/^(<{7}|={7}|>{7})/.test(raw)) return fail(n, 'unresolved merge conflict marker');
    const indent = /^ */.exec(raw)?.[0].length ?? 0;
    const text = raw.slice(indent).trimEnd();
    if (indent === 0) {
      // A section of a later Bundler is skipped, as Bundler skips what it does not know; a line
      // that is no section name at all means the file is not a lockfile.
      if (!SECTIONS.has(text) && !/^[A-Z][A-Z ]*$/.test(text)) return fail(n, `not a lockfile section: "${text.slice(0, 40)}"`);
      section = SECTIONS.has(text) ? text : SKIPPED;
      known ||= SECTIONS.has(text);
      inSpecs = false;
      spec = null;
      source = ['GIT', 'GEM', 'PATH', 'PLUGIN SOURCE'].includes(text) ? { type: text as LockSourceType, remotes: [], options: {} } : null;
      continue;
    }
    if (section === null) return fail(n, 'an indented line before any section');
    if (section === SKIPPED) continue;
    if (source !== null) {
      if (indent === 2) {
        if (text === 'specs:') {
          inSpecs = true;
          continue;
        }
        const option = /^([\w-]+): ?(.*)$/.exec(text);
        if (!option?.[1]) return fail(n, `unexpected line in ${section}: "${text.slice(0, 60)}"`);
        if (option[1] === 'remote') source.remotes.push(option[2] ?? '');
        else source.options[option[1]] = option[2] ?? '';
        continue;
      }
      if (!inSpecs) return fail(n, `a spec before "specs:" in ${section}`);
      if (indent === 4) {
        const m = NAME_VERSION.exec(text);
        if (!m?.[1] || m[2] === undefined || m[2] === '') return fail(n, `not a spec "name (version)": "${text.slice(0, 60)}"`);
        spec = { name: m[1], version: m[2], platform: m[3] === undefined || m[3] === 'ruby' ? null : m[3], dependencies: [], source, line: n };
        specs.push(spec);
        if (specs.length > INPUT_LIMITS.maxEntries) throw limitExceeded(path, 'maxEntries', { line: n });
        continue;
      }
      if (indent === 6 && spec !== null) {
        const m = DEPENDENCY.exec(text);
        if (!m?.[1]) return fail(n, `not a dependency "name (requirement)": "${text.slice(0, 60)}"`);
        spec.dependencies.push({ name: m[1], requirement: m[2] ?? '' });
        if (spec.dependencies.length > INPUT_LIMITS.maxEdgesPerEntry) throw limitExceeded(path, 'maxEdgesPerEntry', { line: n, package: spec.name });
        continue;
      }
      return fail(n, `unexpected indentation in ${section}`);
    }
    if (indent !== 2 && !(section === 'RUBY VERSION' || section === 'BUNDLED WITH')) return fail(n, `unexpected indentation in ${section}`);
    switch (section) {
      case 'PLATFORMS':
        platforms.push(text);
        break;
      case 'DEPENDENCIES': {
        const m = DEPENDENCY.exec(text);
        if (!m?.[1]) return fail(n, `not a dependency "name (requirement)": "${text.slice(0, 60)}"`);
        dependencies.push({ name: m[1], requirement: m[2] ?? '', pinned: m[3] === '!' });
        break;
      }
      case 'RUBY VERSION':
        rubyVersion = text.replace(/^ruby\s+/, '');
        break;
      case 'BUNDLED WITH':
        bundledWith = text;
        break;
      case 'CHECKSUMS': {
        // `name (version[-platform])` alone (no checksum known, e.g. a PATH gem) or with `alg=hex[,…]`.
        const m = /^(\S+ \([^)]*\))(?: (.*))?$/.exec(text);
        if (!m?.[1]) return fail(n, `not a checksum line: "${text.slice(0, 60)}"`);
        for (const part of (m[2] ?? '').split(',')) {
          const [alg, hex] = part.trim().split('=');
          if (alg === 'sha256' && hex !== undefined) checksums.set(m[1], hex);
        }
        break;
      }
    }
  }
  if (!known) return fail(1, 'no Bundler lockfile sections (GEM, GIT, PATH, DEPENDENCIES …)');
  return { ok: true, lock: { specs, platforms, dependencies, checksums, rubyVersion, bundledWith } };
}
