import { GIT_HOST_KINDS, type GitHostKind } from './sources/git-hosts.js';
import { ECOSYSTEMS, type PackageRegistry } from '../ecosystems/index.js';
import type { PackageTargets } from '../ecosystems/registration.js';

/**
 * The target grammar of `POST /v1/list` and `GET /v1/read`:
 * - package: `<registry>:<package>[@<version|range|tag>]`: `npm` (scoped names included),
 *   `crates`/`cargo`, `pypi`, `go`/`golang` (a module path), `maven` (`<groupId>:<artifactId>`),
 *   `rubygems`/`gem`, `nuget`, `packagist`/`composer` (`<vendor>/<name>`), `pub`, `hex`
 * - repository: `<host-kind>:<owner>/<repo>[@<ref>]` (github, gitlab, bitbucket)
 * - site: `site:<host>[:<port>][/<scope>]`
 */
export type ListTarget = PackageTarget | RepositoryTarget | SiteTarget;

export interface PackageTarget {
  readonly kind: 'package';
  readonly registry: PackageRegistry;
  readonly name: string;
  /** The version expression asked for (exact, range or tag); null for the latest. */
  readonly spec: string | null;
  readonly text: string;
}

export interface RepositoryTarget {
  readonly kind: 'repository';
  readonly host: GitHostKind;
  readonly owner: string;
  readonly repo: string;
  readonly ref: string | null;
  readonly text: string;
}

export interface SiteTarget {
  readonly kind: 'site';
  /** Host, with its port when one is given, lower-cased. */
  readonly host: string;
  /** Path scope without leading or trailing slash ('' for the whole host). */
  readonly scope: string;
  readonly text: string;
}

export type TargetParse = { readonly ok: true; readonly target: ListTarget } | { readonly ok: false; readonly detail: string };

/** Target prefixes (aliases included) to the registrations whose packages they name. */
const REGISTRY_PREFIXES: ReadonlyMap<string, PackageTargets> = new Map(ECOSYSTEMS.flatMap((e) => ('packages' in e ? e.packages.prefixes.map((p) => [p, e.packages] as const) : [])));
const OWNER_REPO = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,99})\/([A-Za-z0-9_.-]{1,100})$/;
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::\d{1,5})?$|^\[[0-9a-f:.]+\](?::\d{1,5})?$/;

function fail(detail: string): TargetParse {
  return { ok: false, detail };
}

/**
 * The version part of a target, written one way: npm's as given; elsewhere blanks after an
 * operator and around commas go (`~> 7.2` is `~>7.2`, `>=1.0, <2` is `>=1.0,<2`) and other runs
 * of blanks become one (`>=1.0.0 <2.0.0`, Elixir's `and`/`or`). Null when it is empty.
 */
function normalSpec(registry: PackageTargets, spec: string): string | null {
  if (registry.spec === 'as-given') return spec === '' || /\s/.test(spec) ? null : spec;
  const text = spec
    .trim()
    .replace(/(~>|>=|<=|==|!=|[~^<>=])\s+/g, '$1')
    .replace(/\s*,\s*/g, ',')
    .replace(/\s+/g, ' ');
  if (text === '') return null;
  // Blanks separate the clauses of pub, Composer and Elixir requirements only.
  return /\s/.test(text) && registry.spec !== 'clauses' ? null : text;
}

function parsePackage(targets: PackageTargets, rest: string): TargetParse {
  const registry = targets.prefixes[0] as PackageRegistry;
  // An npm scope starts with `@`; a version follows the first `@` after the name.
  const at = rest.indexOf('@', rest.startsWith('@') ? 1 : 0);
  const given = at === -1 ? rest : rest.slice(0, at);
  const spec = at === -1 ? null : rest.slice(at + 1).trim();
  const name = targets.name(given);
  if (name === null) return fail(`target names an invalid package (${registry}): ${JSON.stringify(given)}`);
  const bare = spec === null ? null : normalSpec(targets, spec);
  if (spec !== null && bare === null) return fail('target has an empty or blank-containing version after @');
  return { ok: true, target: { kind: 'package', registry, name, spec: bare, text: `${registry}:${name}${bare === null ? '' : `@${bare}`}` } };
}

function parseRepository(host: GitHostKind, rest: string): TargetParse {
  const at = rest.indexOf('@');
  const path = at === -1 ? rest : rest.slice(0, at);
  const ref = at === -1 ? null : rest.slice(at + 1);
  const match = OWNER_REPO.exec(path.replace(/\.git$/, ''));
  if (!match?.[1] || !match[2]) return fail('target must be <host-kind>:<owner>/<repo>[@<ref>]');
  if (ref !== null && (ref === '' || /[\s~^:?*[\\]|\.\.|@\{|^-/.test(ref))) return fail('target has an invalid git ref after @');
  const text = `${host}:${match[1]}/${match[2]}${ref === null ? '' : `@${ref}`}`;
  return { ok: true, target: { kind: 'repository', host, owner: match[1], repo: match[2], ref, text } };
}

function parseSite(rest: string): TargetParse {
  const slash = rest.indexOf('/');
  const host = (slash === -1 ? rest : rest.slice(0, slash)).toLowerCase();
  const scope = (slash === -1 ? '' : rest.slice(slash + 1)).replace(/^\/+|\/+$/g, '');
  if (!HOST.test(host)) return fail('target must be site:<host>[/<scope>] with a valid host');
  const port = /:(\d+)$/.exec(host)?.[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return fail('target has an invalid port');
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f#?]/.test(scope)) return fail('target scope must be a plain path');
  return { ok: true, target: { kind: 'site', host, scope, text: `site:${host}${scope === '' ? '' : `/${scope}`}` } };
}

export function parseTarget(input: string): TargetParse {
  const text = input.trim();
  const colon = text.indexOf(':');
  if (colon <= 0) return fail('target must start with a registry, host kind or site: prefix, e.g. npm:react@18.3.1');
  const prefix = text.slice(0, colon).toLowerCase();
  const rest = text.slice(colon + 1).trim();
  if (rest === '') return fail('target names nothing after its prefix');
  if (prefix === 'site') return parseSite(rest);
  const registry = REGISTRY_PREFIXES.get(prefix);
  if (registry !== undefined) return parsePackage(registry, rest);
  const host = GIT_HOST_KINDS.find((h) => h === prefix);
  if (host) return parseRepository(host, rest);
  return fail(`target prefix ${JSON.stringify(prefix)} is not a known registry (${[...REGISTRY_PREFIXES.keys()].join(', ')}), host kind (${GIT_HOST_KINDS.join(', ')}) or site`);
}
