import { isUtf8 } from 'node:buffer';
import * as languages from 'linguist-languages';
import { languageId } from './languages.js';

/**
 * What a file is: language (GitHub Linguist's data), a raw file-type label, its intent, and
 * whether it is text (with its line count). Pure: decided from the path and the bytes.
 */

export const INTENTS = ['production', 'test', 'benchmark', 'example', 'generated', 'fixture', 'build', 'vendor'] as const;
export type Intent = (typeof INTENTS)[number];

/** Where the file comes from changes what some folders mean (dist/ ships in a package). */
export type InventoryContext = 'package' | 'repository';

interface LinguistLanguage {
  readonly type?: string;
  readonly extensions?: readonly string[];
  readonly filenames?: readonly string[];
}

/** Extensions several languages claim, settled the way GitHub shows them most often. */
const PREFERRED: Readonly<Record<string, string>> = {
  '.h': 'C',
  '.md': 'Markdown',
  '.ts': 'TypeScript',
  '.json': 'JSON',
  '.yml': 'YAML',
  '.yaml': 'YAML',
  '.pl': 'Perl',
  '.m': 'Objective-C',
  '.sql': 'SQL',
  '.v': 'V',
  '.cs': 'C#',
  '.fs': 'F#',
  '.rs': 'Rust',
  '.html': 'HTML',
  '.xml': 'XML',
  '.txt': 'Text',
  '.d.ts': 'TypeScript',
  '.lock': 'Text',
};

const TYPE_RANK: Readonly<Record<string, number>> = { programming: 0, markup: 1, data: 2, prose: 3 };

function buildTables(): { byExtension: Map<string, string>; byFilename: Map<string, string> } {
  const byExtension = new Map<string, string>();
  const byFilename = new Map<string, string>();
  const candidates = new Map<string, { name: string; primary: boolean; rank: number }[]>();
  for (const [name, data] of Object.entries(languages as Record<string, LinguistLanguage>)) {
    (data.extensions ?? []).forEach((ext, i) => {
      const list = candidates.get(ext.toLowerCase()) ?? [];
      list.push({ name, primary: i === 0, rank: TYPE_RANK[data.type ?? ''] ?? 4 });
      candidates.set(ext.toLowerCase(), list);
    });
    for (const file of data.filenames ?? []) if (!byFilename.has(file)) byFilename.set(file, name);
  }
  for (const [ext, list] of candidates) {
    const preferred = PREFERRED[ext];
    const choice =
      list.find((c) => c.name === preferred) ??
      [...list].sort((a, b) => Number(b.primary) - Number(a.primary) || a.rank - b.rank || a.name.localeCompare(b.name))[0];
    if (choice) byExtension.set(ext, choice.name);
  }
  return { byExtension, byFilename };
}

const tables = buildTables();

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The Linguist language name, lower-cased (filters compare lower-cased), or null. */
export function languageOf(path: string): string | null {
  const name = basename(path);
  const byName = tables.byFilename.get(name);
  if (byName !== undefined) return languageId(byName);
  const lower = name.toLowerCase();
  // Longest matching extension first: `.d.ts` before `.ts`, `.tar.gz` before `.gz`.
  for (let dot = lower.indexOf('.', 1); dot !== -1; dot = lower.indexOf('.', dot + 1)) {
    const language = tables.byExtension.get(lower.slice(dot));
    if (language !== undefined) return languageId(language);
  }
  return null;
}

/** A raw file-type label: the last extension, lower-cased, or the lower-cased name without one. */
export function fileTypeOf(path: string): string {
  const name = basename(path).toLowerCase();
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1) : name;
}

/** Text is valid UTF-8 without NUL bytes; its line count counts a last line without a newline. */
export function textFacts(bytes: Buffer): { binary: boolean; lineCount: number | null } {
  if (bytes.includes(0) || !isUtf8(bytes)) return { binary: true, lineCount: null };
  if (bytes.length === 0) return { binary: false, lineCount: 0 };
  let lines = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
  if (bytes[bytes.length - 1] !== 10) lines++;
  return { binary: false, lineCount: lines };
}

const SEGMENT = (names: string): RegExp => new RegExp(`(^|/)(${names})/`, 'i');
const VENDOR = SEGMENT('vendor|vendors|third_party|third-party|thirdparty|node_modules|bower_components|jspm_packages');
const FIXTURE = SEGMENT('fixtures?|__fixtures__|testdata|test-data|__snapshots__|__mocks__|mocks');
const TEST = SEGMENT('tests?|__tests__|specs?|e2e|integration-tests?');
const TEST_FILE = /[._-](test|spec|e2e)\.[a-z0-9]+$|(^|\/)test_[^/]+\.py$|_test\.(go|py|rb)$/i;
const BENCH = SEGMENT('bench|benches|benchmarks?|perf');
const BENCH_FILE = /[._-](bench|benchmark)\.[a-z0-9]+$/i;
const EXAMPLE = SEGMENT('examples?|demos?|samples?|playground|docs/examples?');
const BUILD_DIR = SEGMENT('scripts|tools|build-scripts|\\.github|\\.circleci|ci');
const BUILD_FILE =
  /(^|\/)(makefile|gnumakefile|dockerfile|containerfile|jenkinsfile|rakefile|gruntfile\.[cm]?[jt]s|gulpfile\.[cm]?[jt]s|(webpack|rollup|vite|vitest|jest|babel|esbuild|tsup|karma|eslint|prettier|postcss|tailwind|svelte|next|nuxt|astro)\.config\.[a-z]+|tsconfig(\.[\w-]+)?\.json|\.babelrc|\.eslintrc(\.[a-z]+)?|\.prettierrc(\.[a-z]+)?|\.npmignore|\.gitignore|\.gitattributes|\.editorconfig|\.travis\.yml|appveyor\.yml|azure-pipelines\.yml)$/i;
const SHIPPED_BUILD = SEGMENT('dist|build|lib|out|cjs|esm|umd|es|bundles?');
const GENERATED_FILE = /\.(map|min\.js|min\.css|min\.mjs)$|(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lock|npm-shrinkwrap\.json)$/i;

/** A source map reference at the end of the file: output of a compiler or bundler. */
function hasTrailingSourceMap(text: string): boolean {
  const tail = text.slice(-512).trimEnd();
  return /\/[/*][#@] sourceMappingURL=[^\s]+(\s*\*\/)?$/.test(tail);
}

function hasGeneratedHeader(text: string): boolean {
  return /@generated|\bDO NOT EDIT\b|\bCode generated\b.*\bDO NOT EDIT\b|auto-?generated (file|by)/i.test(text.slice(0, 1024));
}

/**
 * The purpose of a file, by path conventions first (vendor, fixture, test, benchmark, example,
 * build), then by content (a trailing sourceMappingURL or a generated-file header). In a package,
 * the build output it ships (dist/, lib/, …) is its production code, not vendored or generated.
 */
export function intentOf(path: string, text: string | null, context: InventoryContext): Intent {
  if (VENDOR.test(path)) return 'vendor';
  if (FIXTURE.test(path)) return 'fixture';
  if (TEST.test(path) || TEST_FILE.test(path)) return 'test';
  if (BENCH.test(path) || BENCH_FILE.test(path)) return 'benchmark';
  if (EXAMPLE.test(path)) return 'example';
  if (BUILD_FILE.test(path) || BUILD_DIR.test(path)) return 'build';
  if (GENERATED_FILE.test(path)) return 'generated';
  const shipped = context === 'package' && SHIPPED_BUILD.test(path);
  if (text !== null && !shipped && (hasTrailingSourceMap(text) || hasGeneratedHeader(text))) return 'generated';
  return 'production';
}

export interface FileFacts {
  readonly language: string | null;
  readonly fileType: string;
  readonly intent: Intent;
  readonly lineCount: number | null;
  readonly binary: boolean;
}

export function classifyFile(path: string, bytes: Buffer, context: InventoryContext): FileFacts {
  const { binary, lineCount } = textFacts(bytes);
  return {
    language: languageOf(path),
    fileType: fileTypeOf(path),
    intent: intentOf(path, binary ? null : bytes.toString('utf8'), context),
    lineCount,
    binary,
  };
}
