import type { Declaration } from '../../model/model.js';
import { parseToml } from '../../model/safe-parse.js';
import { obj, str, strings } from './data.js';
import { parseRequirement, type Requirement } from './names.js';

/** A requirement a manifest declares, with where: `dependencies`, `optional:<extra>`, `group:<name>`. */
export interface Declared {
  readonly requirement: Requirement;
  readonly kind: string;
  readonly scope: 'prod' | 'optional' | 'dev';
}

export interface PyProject {
  readonly path: string;
  readonly name: string | null;
  readonly version: string | null;
  readonly declared: readonly Declared[];
  /** Names of `[project.optional-dependencies]` extras (PDM locks them as groups). */
  readonly extras: ReadonlySet<string>;
  /**
   * Whether it describes a project: a `[project]` table, a Poetry project, dependency groups, a uv
   * workspace or uv's or PDM's dependency tables. A pyproject.toml of tool settings alone (black, ruff, mypy
   * beside a setup.py) declares nothing and is no manifest.
   */
  readonly isManifest: boolean;
}

/** Poetry's `name = "^1.2"` / `name = { version = "^1.2", optional = true }` tables as PEP 508 strings. */
function poetryTable(table: unknown): { text: string; optional: boolean }[] {
  return Object.entries(obj(table)).flatMap(([name, spec]) => {
    if (name.toLowerCase() === 'python') return [];
    const version = typeof spec === 'string' ? spec : (str(obj(spec)['version']) ?? '');
    // Poetry's caret and tilde ranges are not PEP 440; kept as written, they stay declarations.
    const text = version === '' || version === '*' ? name : `${name}${/^[=<>!~]/.test(version) ? '' : ' '}${version}`;
    return [{ text, optional: obj(spec)['optional'] === true }];
  });
}

/** pyproject.toml: PEP 621 `[project]`, PEP 735 dependency groups, and Poetry's and PDM's and uv's own tables. */
export function readPyProject(path: string, text: string): PyProject {
  const doc = parseToml(path, text);
  const project = obj(doc['project']);
  const tool = obj(doc['tool']);
  const poetry = obj(tool['poetry']);
  const isManifest =
    doc['project'] !== undefined ||
    doc['dependency-groups'] !== undefined ||
    ['name', 'dependencies', 'dev-dependencies', 'group'].some((k) => poetry[k] !== undefined) ||
    ['dev-dependencies', 'workspace'].some((k) => obj(tool['uv'])[k] !== undefined) ||
    obj(tool['pdm'])['dev-dependencies'] !== undefined;
  const declared: Declared[] = [];
  const add = (texts: readonly string[], kind: string, scope: Declared['scope']): void => {
    for (const t of texts) {
      const requirement = parseRequirement(t);
      if (requirement) declared.push({ requirement, kind, scope });
    }
  };
  add(strings(project['dependencies']), 'dependencies', 'prod');
  const extras = new Set<string>();
  for (const [extra, list] of Object.entries(obj(project['optional-dependencies']))) {
    extras.add(extra);
    add(strings(list), `optional:${extra}`, 'optional');
  }
  for (const [group, list] of Object.entries(obj(doc['dependency-groups']))) {
    // `{include-group = "…"}` entries name another group, read on its own.
    add(strings(list), `group:${group}`, 'dev');
  }
  for (const { text: t, optional } of poetryTable(poetry['dependencies'])) add([t], 'dependencies', optional ? 'optional' : 'prod');
  for (const { text: t } of poetryTable(poetry['dev-dependencies'])) add([t], 'group:dev', 'dev');
  for (const [group, table] of Object.entries(obj(poetry['group']))) {
    for (const { text: t } of poetryTable(obj(table)['dependencies'])) add([t], `group:${group}`, group === 'main' ? 'prod' : 'dev');
  }
  add(strings(obj(tool['uv'])['dev-dependencies']), 'group:dev', 'dev');
  for (const [group, list] of Object.entries(obj(obj(tool['pdm'])['dev-dependencies']))) add(strings(list), `group:${group}`, 'dev');
  return {
    path,
    name: str(project['name']) ?? str(poetry['name']),
    version: str(project['version']) ?? str(poetry['version']),
    declared,
    extras,
    isManifest,
  };
}

/** Pipfile: `[packages]` and `[dev-packages]` (`name = "*"`, `name = "==1.0"`, or a table). */
export function readPipfile(path: string, text: string): Declared[] {
  const doc = parseToml(path, text);
  const read = (table: unknown, kind: string, scope: Declared['scope']): Declared[] =>
    Object.entries(obj(table)).flatMap(([name, spec]) => {
      const version = typeof spec === 'string' ? spec : (str(obj(spec)['version']) ?? '*');
      const requirement = parseRequirement(version === '*' ? name : `${name}${version}`);
      return requirement ? [{ requirement, kind, scope }] : [];
    });
  return [...read(doc['packages'], 'packages', 'prod'), ...read(doc['dev-packages'], 'dev-packages', 'dev')];
}

/** setup.cfg: `[options] install_requires` and `[options.extras_require]` (an INI file). */
export function readSetupCfg(text: string): Declared[] {
  const declared: Declared[] = [];
  let section = '';
  let key: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s[#;].*$/, '');
    const header = /^\[([^\]]+)\]\s*$/.exec(line);
    if (header?.[1]) {
      section = header[1].trim();
      key = null;
      continue;
    }
    const kv = /^([A-Za-z0-9_.-]+)\s*[=:]\s*(.*)$/.exec(line);
    if (kv?.[1] !== undefined && !/^\s/.test(line)) {
      key = kv[1];
      const value = (kv[2] ?? '').trim();
      if (value !== '') take(section, key, value);
      continue;
    }
    if (key !== null && /^\s+\S/.test(line)) take(section, key, line.trim());
  }
  function take(sec: string, k: string, value: string): void {
    const requirement = parseRequirement(value);
    if (!requirement) return;
    if (sec === 'options' && k === 'install_requires') declared.push({ requirement, kind: 'install_requires', scope: 'prod' });
    if (sec === 'options.extras_require') declared.push({ requirement, kind: `optional:${k}`, scope: 'optional' });
  }
  return declared;
}

export function declarationOf(manifest: string, d: Declared): Declaration {
  const range = d.requirement.url ?? d.requirement.specifier;
  return { manifest, name: d.requirement.name, range, kind: d.kind, ecosystem: 'pypi' };
}

