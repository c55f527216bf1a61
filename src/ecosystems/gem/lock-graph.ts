import type { Inventory, Occurrence, OccurrenceSource } from '../../model/model.js';
import { GraphBuilder, hexIntegrity } from '../shared/builder.js';
import { dirOf, joinDir } from '../shared/paths.js';
import { isDevOnly, type Gemfile } from './gemfile.js';
import type { Gemspec } from './gemspec.js';
import { specKey, type GemfileLock, type LockSpec } from './parse-gemfile-lock.js';

/**
 * A parsed Gemfile.lock as occurrences and edges. Every spec of a GEM, GIT, PATH or PLUGIN SOURCE
 * section is one occurrence (platform builds of one version are separate occurrences); the specs
 * of a PATH section whose remote is the project's folder are the project itself (roots).
 * Dependency lines resolve to the exact occurrence: the one of that name; for a platform build
 * (`nokogiri (1.16.0-x86_64-linux)`) the build of the same platform, else the generic `ruby` one;
 * for a generic depender every build of the name (which one installs depends on the machine). The DEPENDENCIES section is the
 * project's own requirements (edges from the project). Scopes: a Gemfile states groups, so a gem
 * only the development/test groups ask for is dev and the rest follows the graph; without a
 * Gemfile nothing records scope.
 */

export interface LockContext {
  /** The Gemfile the lock was written from, when uploaded (evaluated files merged in). */
  readonly gemfile: { readonly path: string; readonly file: Gemfile } | null;
  /** Gemspecs of the project (named by the Gemfile's `gemspec`, or beside the lock). */
  readonly gemspecs: readonly { readonly path: string; readonly spec: Gemspec; readonly developmentGroup: string }[];
  /** Name of the project when no PATH gem or gemspec names it (its folder). */
  readonly fallbackName: string;
  readonly kind: string;
  /** The lock's folder (PATH remotes are relative to it). */
  readonly dir: string;
}

const RUBYGEMS = /^https?:\/\/(www\.)?rubygems\.org\/?$/;

/**
 * A PATH gem is the project itself when its remote is the lock's own folder (`.`), or the folder
 * of an uploaded project gemspec of that name (an Appraisal gemfile's `gemspec path: "../"`).
 */
function isProject(spec: LockSpec, ctx: LockContext): boolean {
  if (spec.source.type !== 'PATH') return false;
  const folder = joinDir(ctx.dir, spec.source.remotes[0] ?? '.');
  return folder === ctx.dir || ctx.gemspecs.some((g) => g.spec.name === spec.name && dirOf(g.path) === folder);
}

function sourceOf(spec: LockSpec): { source: OccurrenceSource; resolved: string | null; facts: Record<string, string> } {
  const { source: s, name, version, platform } = spec;
  const remote = s.remotes[0] ?? '';
  const file = `${name}-${version}${platform === null ? '' : `-${platform}`}.gem`;
  const facts: Record<string, string> = {};
  if (platform !== null) facts['platform'] = platform;
  switch (s.type) {
    case 'GEM':
      if (s.remotes.length === 0 || s.remotes.some((r) => RUBYGEMS.test(r))) return { source: 'registry', resolved: `https://rubygems.org/gems/${file}`, facts };
      // Another gem server: the same name on rubygems.org may be another gem, so it is not enriched from there.
      return { source: 'tarball', resolved: `${remote.replace(/\/?$/, '/')}gems/${file}`, facts: { ...facts, registry: remote } };
    case 'GIT': {
      for (const key of ['branch', 'tag', 'ref', 'glob', 'submodules'] as const) if (s.options[key] !== undefined) facts[`git_${key}`] = s.options[key] ?? '';
      const revision = s.options['revision'];
      return { source: 'git', resolved: `git+${remote}${revision === undefined ? '' : `@${revision}`}`, facts };
    }
    case 'PATH':
      return { source: 'file', resolved: remote, facts: { ...facts, path: remote } };
    case 'PLUGIN SOURCE':
      return { source: 'tarball', resolved: null, facts: { ...facts, registry: remote, plugin: s.options['type'] ?? '' } };
  }
}

/** Gemfile gems by name with the union of their groups; gemspec development dependencies join their group. */
function groupsByName(ctx: LockContext): Map<string, Set<string>> {
  const groups = new Map<string, Set<string>>();
  const add = (name: string, list: readonly string[]): void => {
    const set = groups.get(name) ?? new Set<string>();
    for (const g of list) set.add(g);
    groups.set(name, set);
  };
  for (const gem of ctx.gemfile?.file.gems ?? []) add(gem.name, gem.groups);
  for (const { spec, developmentGroup } of ctx.gemspecs) {
    for (const d of spec.dependencies) add(d.name, [d.kind === 'development' ? developmentGroup : 'default']);
  }
  return groups;
}

export function lockInventory(path: string, lock: GemfileLock, ctx: LockContext): Inventory {
  const b = new GraphBuilder(path, 'gem');
  // What the lock says of the project as a whole: the Ruby it was resolved for and its platforms.
  const projectFacts: Record<string, string> = {};
  if (lock.rubyVersion !== null) projectFacts['ruby_version'] = lock.rubyVersion;
  if (lock.platforms.length > 0) projectFacts['platforms'] = lock.platforms.join(', ');
  const bySpec = new Map<LockSpec, Occurrence>();
  const licenseOf = (name: string): string | null => ctx.gemspecs.find((g) => g.spec.name === name)?.spec.license ?? null;
  for (const spec of lock.specs) {
    const key = specKey(spec.name, spec.version, spec.platform);
    const hex = lock.checksums.get(key);
    const { source, resolved, facts } = sourceOf(spec);
    const init = { name: spec.name, version: spec.version, resolved, integrity: hexIntegrity('sha256', hex), facts };
    const own = isProject(spec, ctx);
    // The project itself: its folder is the upload, not a location worth recording.
    const rootFacts: Record<string, string> = { ...projectFacts, ...(spec.platform === null ? {} : { platform: spec.platform }) };
    bySpec.set(spec, own ? b.root(key, { ...init, resolved: null, facts: rootFacts, license: licenseOf(spec.name), installPath: '' }) : b.add(key, { ...init, source }));
  }
  const roots = lock.specs.filter((s) => bySpec.get(s)?.source === 'root');
  let project: Occurrence | undefined = roots.map((s) => bySpec.get(s)).find((o) => ctx.gemspecs.some((g) => g.spec.name === o?.name)) ?? (roots[0] ? bySpec.get(roots[0]) : undefined);
  if (project === undefined) {
    const spec = ctx.gemspecs[0]?.spec;
    project = b.root('', { name: spec?.name ?? ctx.fallbackName, version: spec?.version ?? null, license: spec?.license ?? null, installPath: '', facts: projectFacts });
  }

  const targets = (name: string, platform: string | null): Occurrence[] => {
    const all = b.named(name);
    // A generic (`ruby`) depender gets whichever build the machine's platform has: every build
    // the lock records is an install of it somewhere, so each is linked (and none is orphaned).
    if (all.length <= 1 || platform === null) return [...all];
    const same = all.filter((o) => (o.facts['platform'] ?? null) === platform);
    if (same.length > 0) return same;
    const generic = all.filter((o) => o.facts['platform'] === undefined);
    return generic.length > 0 ? generic : [...all];
  };
  const missing = new Set<string>();
  const link = (from: Occurrence, name: string, requirement: string, kind: 'prod' | 'dev', platform: string | null): void => {
    const found = targets(name, platform);
    // Bundler never locks itself: its version is BUNDLED WITH.
    if (found.length === 0 && name !== 'bundler') missing.add(name);
    for (const to of found) b.edge(from, to, kind, requirement === '' ? null : requirement);
  };
  for (const spec of lock.specs) {
    const from = bySpec.get(spec);
    if (from) for (const d of spec.dependencies) link(from, d.name, d.requirement, 'prod', spec.platform);
  }
  const groups = groupsByName(ctx);
  for (const d of lock.dependencies) {
    const stated = groups.get(d.name);
    link(project, d.name, d.requirement, stated !== undefined && isDevOnly([...stated]) ? 'dev' : 'prod', null);
  }
  if (missing.size > 0) b.notice(`${path} names ${[...missing].sort().join(', ')} as dependencies but records no spec for them`);
  if (ctx.gemfile !== null) b.covers(ctx.gemfile.path);
  for (const g of ctx.gemspecs) b.covers(g.path);
  return b.finish({ kind: ctx.kind, version: lock.bundledWith, scopes: ctx.gemfile === null ? 'unknown' : 'graph' });
}
