import { GoFileError, readStatements, word, type Statement } from './syntax.js';
import { isGoVersion } from './version.js';

/**
 * go.mod as data (https://go.dev/ref/mod#go-mod-file): every directive a real file can hold —
 * module (with its `Deprecated:` comment), go, toolchain, godebug, require (`// indirect`),
 * exclude, replace, retract, tool (Go 1.24) and ignore (Go 1.25). A directive this reader does not
 * know is kept by name and otherwise ignored, as the go command ignores them in a dependency's
 * go.mod: a newer file still gives its build list.
 */

export interface ModuleVersion {
  readonly path: string;
  readonly version: string;
}

export interface Requirement extends ModuleVersion {
  readonly indirect: boolean;
  readonly line: number;
}

export interface Replacement {
  /** The module replaced, and the one version replaced (null: every version). */
  readonly old: { readonly path: string; readonly version: string | null };
  /** Another module at a version, or a directory (`./x`, `../x`, an absolute path) with version null. */
  readonly new: { readonly path: string; readonly version: string | null };
  readonly line: number;
}

export interface Retraction {
  readonly low: string;
  readonly high: string;
  readonly rationale: string;
}

export interface GoMod {
  readonly module: string | null;
  readonly deprecated: string | null;
  readonly go: string | null;
  readonly toolchain: string | null;
  readonly godebug: readonly { readonly key: string; readonly value: string }[];
  readonly requires: readonly Requirement[];
  readonly excludes: readonly ModuleVersion[];
  readonly replaces: readonly Replacement[];
  readonly retracts: readonly Retraction[];
  readonly tools: readonly string[];
  readonly ignores: readonly string[];
  /** Directives this reader does not know (a later Go's), ignored. */
  readonly unknown: readonly string[];
}

/** modfile.IsDirectoryPath: relative and rooted paths (Unix or Windows) are directories. */
export function isDirectoryPath(p: string): boolean {
  return /^(\.{1,2}[/\\]|[/\\]|[A-Za-z]:)/.test(p) || p === '.' || p === '..';
}

const MODULE_PATH = /^[^\s"'`@]{1,500}$/;

function fail(s: Statement, message: string): never {
  throw new GoFileError('malformed', `${s.verb}: ${message}`, s.line, s.column);
}

function argWords(s: Statement): string[] {
  return s.args.map((t) => word(t) ?? fail(s, `unexpected '${t.text}'`));
}

export function modulePath(s: Statement, value: string | undefined): string {
  if (value === undefined || !MODULE_PATH.test(value)) fail(s, `invalid module path ${JSON.stringify(value ?? '')}`);
  return value;
}

export function moduleVersion(s: Statement, value: string | undefined): string {
  if (value === undefined || !isGoVersion(value)) fail(s, `invalid version ${JSON.stringify(value ?? '')}: must be of the form v1.2.3`);
  return value;
}

/** `old [version] => new [version]`, as modfile's parseReplace accepts it (go.mod and go.work). */
export function replacement(s: Statement): Replacement {
  const args = argWords(s);
  const arrow = args[1] === '=>' ? 1 : 2;
  if (args.length < arrow + 2 || args.length > arrow + 3 || args[arrow] !== '=>') {
    fail(s, 'usage: replace module/path [v1.2.3] => other/module v1.4 | ../local/directory');
  }
  const oldPath = modulePath(s, args[0]);
  const oldVersion = arrow === 2 ? moduleVersion(s, args[1]) : null;
  const target = args[arrow + 1];
  if (target === undefined || target === '') fail(s, 'missing replacement');
  if (args.length === arrow + 2) {
    if (!isDirectoryPath(target)) fail(s, 'a replacement without a version must be a directory (./x, ../x)');
    return { old: { path: oldPath, version: oldVersion }, new: { path: target, version: null }, line: s.line };
  }
  if (isDirectoryPath(target)) fail(s, 'a replacement directory cannot have a version');
  return { old: { path: oldPath, version: oldVersion }, new: { path: modulePath(s, target), version: moduleVersion(s, args[arrow + 2]) }, line: s.line };
}

/** `// indirect` or `// indirect; other words` (modfile's isIndirect). */
function isIndirect(suffix: string | null): boolean {
  if (suffix === null) return false;
  const f = suffix.split(/\s+/).filter((w) => w !== '');
  return (f.length === 1 && f[0] === 'indirect') || (f.length > 1 && f[0] === 'indirect;');
}

/** The `Deprecated:` paragraph of the comments on the module directive (modfile's parseDeprecation). */
function deprecation(s: Statement): string | null {
  const lines = [...s.before, ...(s.suffix === null ? [] : [s.suffix])];
  const paragraphs = lines.join('\n').split(/\n\s*\n/);
  for (const p of paragraphs) {
    const m = /^Deprecated: *([\s\S]*)$/.exec(p);
    if (m) return (m[1] ?? '').trim();
  }
  return null;
}

function retraction(s: Statement, args: string[]): Retraction {
  const rationale = [...s.before, ...(s.suffix === null ? [] : [s.suffix])].join('\n');
  if (args.length === 1) {
    const v = moduleVersion(s, args[0]);
    return { low: v, high: v, rationale };
  }
  if (args.length === 5 && args[0] === '[' && args[2] === ',' && args[4] === ']') {
    return { low: moduleVersion(s, args[1]), high: moduleVersion(s, args[3]), rationale };
  }
  fail(s, 'expected a version or [low, high]');
}

export function parseGoMod(text: string): GoMod {
  const statements = readStatements(text);
  let module: string | null = null;
  let deprecated: string | null = null;
  let go: string | null = null;
  let toolchain: string | null = null;
  const godebug: { key: string; value: string }[] = [];
  const requires: Requirement[] = [];
  const excludes: ModuleVersion[] = [];
  const replaces: Replacement[] = [];
  const retracts: Retraction[] = [];
  const tools: string[] = [];
  const ignores: string[] = [];
  const unknown = new Set<string>();
  for (const s of statements) {
    switch (s.verb) {
      case 'module': {
        if (module !== null) fail(s, 'repeated module directive');
        const args = argWords(s);
        if (args.length !== 1) fail(s, 'usage: module module/path');
        module = modulePath(s, args[0]);
        deprecated = deprecation(s);
        break;
      }
      case 'go':
      case 'toolchain': {
        const args = argWords(s);
        if (args.length !== 1) fail(s, 'expects exactly one argument');
        if ((s.verb === 'go' ? go : toolchain) !== null) fail(s, `repeated ${s.verb} directive`);
        if (s.verb === 'go') go = args[0] ?? null;
        else toolchain = args[0] ?? null;
        break;
      }
      case 'godebug': {
        const args = argWords(s);
        const [key, value] = (args[0] ?? '').split('=', 2);
        if (args.length !== 1 || value === undefined || key === undefined) fail(s, 'usage: godebug key=value');
        godebug.push({ key, value });
        break;
      }
      case 'require':
      case 'exclude': {
        const args = argWords(s);
        if (args.length !== 2) fail(s, `usage: ${s.verb} module/path v1.2.3`);
        const path = modulePath(s, args[0]);
        const version = moduleVersion(s, args[1]);
        if (s.verb === 'require') requires.push({ path, version, indirect: isIndirect(s.suffix), line: s.line });
        else excludes.push({ path, version });
        break;
      }
      case 'replace':
        replaces.push(replacement(s));
        break;
      case 'retract':
        retracts.push(retraction(s, s.args.map((t) => t.text)));
        break;
      case 'tool':
      case 'ignore': {
        const args = argWords(s);
        if (args.length !== 1 || args[0] === undefined) fail(s, 'expects exactly one argument');
        (s.verb === 'tool' ? tools : ignores).push(args[0]);
        break;
      }
      default:
        unknown.add(s.verb.slice(0, 64));
    }
  }
  return { module, deprecated, go, toolchain, godebug, requires, excludes, replaces, retracts, tools, ignores, unknown: [...unknown] };
}
