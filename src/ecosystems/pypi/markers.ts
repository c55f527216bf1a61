import pep440 from '@renovatebot/pep440';
import type { PythonEnvironment, PythonEnvironmentKey } from '../../model/environment.js';

/**
 * PEP 508 environment markers, evaluated for one environment. No well-kept npm library evaluates
 * them; the grammar is small (comparisons joined by `and`/`or`, parentheses), so this reader is
 * written here, bounded in length and linear in it. An unreadable marker counts as true: a
 * dependency is kept rather than silently dropped.
 */

export type MarkerEnvironment = Readonly<Record<PythonEnvironmentKey, string>>;

/** The documented default: CPython 3.12 on Linux x86_64. */
export const DEFAULT_ENVIRONMENT: MarkerEnvironment = {
  python_version: '3.12',
  python_full_version: '3.12.8',
  sys_platform: 'linux',
  platform_system: 'Linux',
  platform_machine: 'x86_64',
  platform_python_implementation: 'CPython',
  implementation_name: 'cpython',
  implementation_version: '3.12.8',
  os_name: 'posix',
  platform_release: '',
};

/** What each `sys_platform` implies for the variables a request did not set (CPython's own values). */
const PLATFORMS: Readonly<Record<string, Pick<MarkerEnvironment, 'platform_system' | 'os_name' | 'platform_machine'>>> = {
  linux: { platform_system: 'Linux', os_name: 'posix', platform_machine: 'x86_64' },
  win32: { platform_system: 'Windows', os_name: 'nt', platform_machine: 'AMD64' },
  darwin: { platform_system: 'Darwin', os_name: 'posix', platform_machine: 'arm64' },
  cygwin: { platform_system: 'CYGWIN_NT', os_name: 'posix', platform_machine: 'x86_64' },
};

/**
 * The default environment with a request's overrides, made consistent: a `python_version` alone
 * sets `python_full_version` (and CPython's `implementation_version`) to its `.0` release, a
 * `python_full_version` alone sets `python_version`, and a `sys_platform` alone sets the
 * `platform_system`, `os_name` and `platform_machine` CPython reports there (Windows: AMD64,
 * macOS: arm64). What the request states always wins.
 */
export function completeEnvironment(overrides: PythonEnvironment = {}): MarkerEnvironment {
  const env: Record<PythonEnvironmentKey, string> = { ...DEFAULT_ENVIRONMENT };
  const platform = overrides.sys_platform === undefined ? undefined : PLATFORMS[overrides.sys_platform];
  if (platform !== undefined) Object.assign(env, platform);
  const short = overrides.python_version;
  const full = overrides.python_full_version;
  if (short !== undefined && full === undefined) env.python_full_version = `${short}.0`;
  if (full !== undefined && short === undefined) env.python_version = full.split('.').slice(0, 2).join('.');
  Object.assign(env, overrides);
  if (overrides.implementation_version === undefined && env.implementation_name === 'cpython') env.implementation_version = env.python_full_version;
  return env;
}

const VERSION_VARIABLES = new Set(['python_version', 'python_full_version', 'implementation_version']);
const TOKEN = /\s*(\(|\)|"[^"]*"|'[^']*'|===|==|!=|~=|<=|>=|<|>|not\s+in\b|in\b|and\b|or\b|[A-Za-z_][A-Za-z0-9_.]*)/y;

function tokenize(marker: string): string[] | null {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < marker.length) {
    if (/^\s*$/.test(marker.slice(TOKEN.lastIndex))) break;
    const match = TOKEN.exec(marker);
    if (!match?.[1]) return null;
    tokens.push(match[1].replace(/\s+/g, ' '));
  }
  return tokens;
}

function compare(left: string, op: string, right: string, versions: boolean): boolean {
  if (op === 'in') return right.includes(left);
  if (op === 'not in') return !right.includes(left);
  if (versions && pep440.valid(left) !== null && pep440.valid(right) !== null) {
    if (op === '~=') return pep440.satisfies(left, `~=${right}`);
    return pep440.satisfies(left, `${op === '===' ? '==' : op}${right}`);
  }
  switch (op) {
    case '==':
    case '===':
      return left === right;
    case '!=':
      return left !== right;
    default:
      return false;
  }
}

/** Whether `marker` holds for `env` with the given extras requested (`extra == "socks"`). */
export function evaluateMarker(marker: string | null, env: MarkerEnvironment, extras: ReadonlySet<string>): boolean {
  if (marker === null || marker.trim() === '') return true;
  if (marker.length > 2_048) return true;
  const tokens = tokenize(marker);
  if (tokens === null) return true;
  let i = 0;
  const value = (token: string | undefined): { text: string; variable: string | null } | null => {
    if (token === undefined) return null;
    if (/^["']/.test(token)) return { text: token.slice(1, -1), variable: null };
    if (token === 'extra') return { text: '', variable: 'extra' };
    const known = (env as unknown as Record<string, string>)[token];
    return known === undefined ? null : { text: known, variable: token };
  };
  const comparison = (): boolean => {
    if (tokens[i] === '(') {
      i++;
      const inner = or();
      i++; // ')'
      return inner;
    }
    const left = value(tokens[i++]);
    const op = tokens[i++] ?? '';
    const right = value(tokens[i++]);
    if (left === null || right === null) return true;
    // `extra == "x"` asks whether that extra was requested.
    if (left.variable === 'extra' || right.variable === 'extra') {
      const name = (left.variable === 'extra' ? right.text : left.text).toLowerCase();
      return op === '!=' ? !extras.has(name) : extras.has(name);
    }
    return compare(left.text, op, right.text, VERSION_VARIABLES.has(left.variable ?? right.variable ?? ''));
  };
  const and = (): boolean => {
    let result = comparison();
    while (tokens[i] === 'and') {
      i++;
      const next = comparison();
      result = result && next;
    }
    return result;
  };
  const or = (): boolean => {
    let result = and();
    while (tokens[i] === 'or') {
      i++;
      const next = and();
      result = result || next;
    }
    return result;
  };
  return or();
}
