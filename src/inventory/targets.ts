import validateName from 'validate-npm-package-name';
import { GIT_HOST_KINDS, type GitHostKind } from '../config.js';
import { pep503 } from './sources/pypi.js';
import type { PackageRegistry } from './sources/registry-source.js';

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

/** Target prefixes per registry (aliases included). */
const REGISTRY_PREFIXES: Readonly<Record<string, PackageRegistry>> = {
  npm: 'npm',
  crates: 'crates',
  cargo: 'crates',
  pypi: 'pypi',
  go: 'go',
  golang: 'go',
  maven: 'maven',
  rubygems: 'rubygems',
  gem: 'rubygems',
  nuget: 'nuget',
  packagist: 'packagist',
  composer: 'packagist',
  pub: 'pub',
  hex: 'hex',
};
/** crates.io names: ASCII letter first, then letters, digits, `-` and `_`, at most 64; compared lower-cased. */
const CRATE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** PEP 508 project names; identity is the PEP 503 normalized name. */
const PYPI_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,198}[A-Za-z0-9])?$/;
/** Go module paths (https://go.dev/ref/mod#go-mod-file-ident): slash-separated elements, the first a host with a dot. */
const GO_MODULE = /^[a-z0-9.-]+\.[a-z]{2,}(?::\d+)?(?:\/[A-Za-z0-9._~-]+)*$/;
/** Maven coordinates `<groupId>:<artifactId>`. */
const MAVEN_COORDINATES = /^[A-Za-z0-9_.-]{1,200}:[A-Za-z0-9_.-]{1,200}$/;
/** RubyGems names: letters, digits, `.`, `-`, `_`; case-sensitive. */
const GEM_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** NuGet ids: compared case-insensitively, lower-cased as the flat container keys them. */
const NUGET_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
/** Composer names `<vendor>/<name>`, lower-case. */
const COMPOSER_NAME = /^[a-z0-9](?:[_.-]?[a-z0-9]+)*\/[a-z0-9](?:(?:[_.]|-{1,2})?[a-z0-9]+)*$/;
/** pub and Hex names: lower-case identifiers. */
const IDENTIFIER = /^[a-z][a-z0-9_]{0,63}$/;
const OWNER_REPO = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,99})\/([A-Za-z0-9_.-]{1,100})$/;
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::\d{1,5})?$|^\[[0-9a-f:.]+\](?::\d{1,5})?$/;

function fail(detail: string): TargetParse {
  return { ok: false, detail };
}

function validName(registry: PackageRegistry, name: string): string | null {
  switch (registry) {
    case 'npm':
      return validateName(name).validForOldPackages ? name : null;
    case 'pypi':
      return PYPI_NAME.test(name) ? pep503(name) : null;
    case 'crates':
      return CRATE_NAME.test(name) ? name.toLowerCase() : null;
    case 'go':
      return GO_MODULE.test(name) && !name.split('/').some((e) => e === '.' || e === '..' || e.endsWith('.')) ? name : null;
    case 'maven':
      return MAVEN_COORDINATES.test(name) ? name : null;
    case 'rubygems':
      return GEM_NAME.test(name) ? name : null;
    case 'nuget':
      return NUGET_ID.test(name) ? name.toLowerCase() : null;
    case 'packagist':
      return COMPOSER_NAME.test(name.toLowerCase()) ? name.toLowerCase() : null;
    case 'pub':
    case 'hex':
      return IDENTIFIER.test(name) ? name : null;
  }
}

/**
 * The version part of a target, written one way: npm's as given; elsewhere blanks after an
 * operator and around commas go (`~> 7.2` is `~>7.2`, `>=1.0, <2` is `>=1.0,<2`) and other runs
 * of blanks become one (`>=1.0.0 <2.0.0`, Elixir's `and`/`or`). Null when it is empty.
 */
function normalSpec(registry: PackageRegistry, spec: string): string | null {
  if (registry === 'npm') return spec === '' || /\s/.test(spec) ? null : spec;
  const text = spec
    .trim()
    .replace(/(~>|>=|<=|==|!=|[~^<>=])\s+/g, '$1')
    .replace(/\s*,\s*/g, ',')
    .replace(/\s+/g, ' ');
  if (text === '') return null;
  // Blanks separate the clauses of pub, Composer and Elixir requirements only.
  return /\s/.test(text) && !['pub', 'packagist', 'hex', 'rubygems'].includes(registry) ? null : text;
}

function parsePackage(registry: PackageRegistry, rest: string): TargetParse {
  // An npm scope starts with `@`; a version follows the first `@` after the name.
  const at = rest.indexOf('@', rest.startsWith('@') ? 1 : 0);
  const given = at === -1 ? rest : rest.slice(0, at);
  const spec = at === -1 ? null : rest.slice(at + 1).trim();
  const name = validName(registry, given);
  if (name === null) return fail(`target names an invalid package (${registry}): ${JSON.stringify(given)}`);
  const bare = spec === null ? null : normalSpec(registry, spec);
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
  const registry = REGISTRY_PREFIXES[prefix];
  if (registry !== undefined && Object.hasOwn(REGISTRY_PREFIXES, prefix)) return parsePackage(registry, rest);
  const host = GIT_HOST_KINDS.find((h) => h === prefix);
  if (host) return parseRepository(host, rest);
  return fail(`target prefix ${JSON.stringify(prefix)} is not a known registry (${Object.keys(REGISTRY_PREFIXES).join(', ')}), host kind (${GIT_HOST_KINDS.join(', ')}) or site`);
}
