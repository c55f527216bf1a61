/**
 * `build.gradle(.kts)` and `settings.gradle(.kts)` read as text, never executed (a build script is
 * a program: running an upload's code is out of the question). What a line states literally is
 * read; anything computed (variables, string templates, loops) is not guessed:
 * - a dependency `conf 'g:a:v'`, `conf("g:a:v")`, `conf(platform("g:a:v"))` → a declaration with
 *   its configuration; the map notation `conf group: 'g', name: 'a', version: 'v'` (Groovy) and
 *   `conf(group = "g", name = "a", version = "v")` (Kotlin) too, in any key order, a computed
 *   value leaving that key out; `conf libs.foo.bar` / `conf(libs.bundles.x)` → a catalog reference;
 * - settings: `rootProject.name = '…'` and `include 'a', ':b:c'` / `include(":a")` → projects.
 * Lines are scanned with anchored patterns over at most MAX_LINE characters (no backtracking blow-up).
 */

export interface BuildDependency {
  readonly configuration: string;
  /** `group:artifact[:version[:classifier]]` as written, or null for a catalog reference. */
  readonly coordinate: string | null;
  /** `foo.bar` of `libs.foo.bar`, `bundles.x` of `libs.bundles.x`. */
  readonly catalogRef: string | null;
  readonly line: number;
}

export interface GradleSettings {
  readonly rootName: string | null;
  /** Project paths without the leading `:` (`app`, `lib:core`). */
  readonly includes: readonly string[];
}

const MAX_LINE = 2000;
const LITERAL = /^\s*([A-Za-z][\w]*)\s*\(?\s*(?:(?:platform|enforcedPlatform)\s*\(\s*)?["']([^"'$\s]+:[^"'$\s]+)["']/;
const CATALOG = /^\s*([A-Za-z][\w]*)\s*\(?\s*(?:(?:platform|enforcedPlatform)\s*\(\s*)?libs\.([\w.]+)/;
/** A configuration followed by a first `key: '…'` / `key = "…"` pair: the map notation. */
const MAP_START = /^\s*([A-Za-z][\w]*)\s*\(?\s*(?:group|name|version)\s*[:=]\s*["']/;
const MAP_PAIR = /\b(group|name|version|classifier)\s*[:=]\s*["']([^"'$]*)["']/g;
const NOT_CONFIGURATIONS = new Set(['id', 'classpath', 'apply', 'plugin', 'version', 'group', 'maven', 'url', 'from', 'include', 'exclude', 'println']);

export function scanBuildScript(text: string): BuildDependency[] {
  const out: BuildDependency[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').slice(0, MAX_LINE);
    const literal = LITERAL.exec(line);
    if (literal?.[1] !== undefined && literal[2] !== undefined && !NOT_CONFIGURATIONS.has(literal[1])) {
      out.push({ configuration: literal[1], coordinate: literal[2], catalogRef: null, line: i + 1 });
      continue;
    }
    const map = mapCoordinate(line);
    if (map !== null && !NOT_CONFIGURATIONS.has(map.configuration)) {
      out.push({ ...map, catalogRef: null, line: i + 1 });
      continue;
    }
    const ref = CATALOG.exec(line);
    if (ref?.[1] !== undefined && ref[2] !== undefined && !NOT_CONFIGURATIONS.has(ref[1])) {
      out.push({ configuration: ref[1], coordinate: null, catalogRef: ref[2].replace(/\.get$/, ''), line: i + 1 });
    }
  }
  return out;
}

/** `conf group: 'g', name: 'a', version: 'v'` as `g:a:v`; null unless group and name are literal. */
function mapCoordinate(line: string): { configuration: string; coordinate: string } | null {
  const start = MAP_START.exec(line);
  if (start?.[1] === undefined) return null;
  const values = new Map<string, string>();
  for (const m of line.matchAll(MAP_PAIR)) if (m[1] !== undefined && m[2] !== undefined && !values.has(m[1])) values.set(m[1], m[2]);
  const group = values.get('group');
  const name = values.get('name');
  if (group === undefined || name === undefined || group === '' || name === '') return null;
  const version = values.get('version');
  const classifier = values.get('classifier');
  const tail = version === undefined || version === '' ? '' : `:${version}${classifier === undefined || classifier === '' ? '' : `:${classifier}`}`;
  return { configuration: start[1], coordinate: `${group}:${name}${tail}` };
}

export function scanSettings(text: string): GradleSettings {
  let rootName: string | null = null;
  const includes: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.slice(0, MAX_LINE);
    const name = /^\s*rootProject\.name\s*=\s*["']([^"'$]+)["']/.exec(line);
    if (name?.[1] !== undefined) rootName = name[1];
    if (!/^\s*include\b/.test(line)) continue;
    for (const m of line.matchAll(/["']([^"'$\s]+)["']/g)) {
      const path = (m[1] ?? '').replace(/^:/, '');
      if (path !== '') includes.push(path);
    }
  }
  return { rootName, includes };
}

/** A project path (`lib:core`) as its directory in the upload (`lib/core`), Gradle's default. */
export function projectDir(path: string): string {
  return path.split(':').filter((s) => s !== '').join('/');
}
