// @ts-check
/**
 * Records the npm registry documents of every package version the JavaScript sets of the shared
 * lockfile corpus use, into test/fixtures/npm-recorded/corpus.json.gz, for tests that replay
 * real metadata (authors written "Name <http://url>", legacy `licenses` arrays, deprecations…).
 *
 *   npx tsx scripts/record-npm-metadata.js [CORPUS_DIR]   (default ../shared/corpus)
 *
 * The registry and its credentials come from the user's npm configuration, read by npm's own
 * libraries. The coordinates are the ones the analysis itself asks the registry for: each set is
 * read as `pkgscope sbom <set>` reads a folder and analysed with an enricher that only notes them.
 * Each version document is kept as the registry sent it (`GET /<name>/<version>`, what the
 * service asks for first); a packument keeps its name and dist-tags and only the used versions.
 * One thing is rewritten: the configured registry's own address (in `dist.tarball`,
 * `publishConfig.registry`) becomes `{registry}`, which a fixture registry replaces by its own.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import npmFetch from 'npm-registry-fetch';
import pLimit from 'p-limit';
import { readInputs } from '../src/commands/sbom-inputs.js';
import { fetchOptionsOf, loadNpmOptions } from '../src/ecosystems/npm/options.js';
import { analyze } from '../src/sbom/analyze.js';

/** The corpus sets recorded, in the order the fixture lists them. */
const SETS = ['js-bun-hono', 'js-pnpm-vue', 'js-yarn-berry-prettier'];

const root = fileURLToPath(new URL('..', import.meta.url));
const corpus = resolve(process.argv[2] ?? join(root, '..', 'shared', 'corpus'));
const output = join(root, 'test', 'fixtures', 'npm-recorded', 'corpus.json.gz');

/** @param {string} name */
const escaped = (name) => (name.startsWith('@') ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name));

/** @param {unknown} error */
const statusOf = (error) => /** @type {{ statusCode?: unknown } | null} */ (error)?.statusCode;

/**
 * The npm coordinates (`name@version`, sorted) an analysis of `dir` enriches.
 * @param {string} dir
 */
async function coordinatesOf(dir) {
  const { files } = await readInputs([dir]);
  /** @type {Set<string>} */
  const seen = new Set();
  await analyze(files, 'text', {
    registry: {
      enrich: async (coordinates) => {
        for (const c of coordinates) if (c.ecosystem === 'npm') seen.add(`${c.name}@${c.version}`);
        return { metadata: new Map(), failed: [] };
      },
    },
  });
  return { files: files.map((f) => f.path), coordinates: [...seen].sort() };
}

/** @param {string} coordinate */
function split(coordinate) {
  const at = coordinate.lastIndexOf('@');
  return { name: coordinate.slice(0, at), version: coordinate.slice(at + 1) };
}

const npmOptions = fetchOptionsOf(await loadNpmOptions());
const options = { ...npmOptions, timeout: 30_000 };
const registry = new URL(String(npmOptions['registry']));
const own = new RegExp(`^https?://${registry.host.replaceAll('.', '\\.')}${registry.pathname.replace(/\/+$/, '')}(?=/|$)`);

/**
 * `value` with every string naming the registry's own address rewritten to `{registry}`.
 * @param {unknown} value
 * @returns {unknown}
 */
function placeholder(value) {
  if (typeof value === 'string') return value.replace(own, '{registry}');
  if (Array.isArray(value)) return value.map(placeholder);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, placeholder(v)]));
}
/** @type {Record<string, { files: string[]; coordinates: string[] }>} */
const sets = {};
for (const set of SETS) sets[set] = await coordinatesOf(join(corpus, set));
const wanted = [...new Set(Object.values(sets).flatMap((s) => s.coordinates))].sort();

/** @type {Map<string, Record<string, unknown>>} */
const versions = new Map();
/** @type {string[]} */
const missing = [];
const limit = pLimit(16);
let done = 0;
await Promise.all(
  wanted.map((coordinate) =>
    limit(async () => {
      const { name, version } = split(coordinate);
      try {
        const doc = /** @type {Record<string, unknown>} */ (await npmFetch.json(`/${escaped(name)}/${encodeURIComponent(version)}`, { ...options, spec: name }));
        versions.set(coordinate, /** @type {Record<string, unknown>} */ (placeholder(doc)));
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
        missing.push(coordinate);
      }
      if (++done % 250 === 0) process.stderr.write(`${done}/${wanted.length} version documents\n`);
    }),
  ),
);

/** @type {Record<string, { name: string; 'dist-tags': unknown; versions: Record<string, unknown> }>} */
const packuments = {};
/** @type {Map<string, string[]>} */
const versionsOf = new Map();
for (const coordinate of wanted) {
  const { name, version } = split(coordinate);
  versionsOf.set(name, [...(versionsOf.get(name) ?? []), version]);
}
const names = [...versionsOf.keys()].sort();
await Promise.all(
  names.map((name) =>
    limit(async () => {
      // The registry's own dist-tags endpoint: the packument's top-level field without its megabytes.
      let tags = {};
      try {
        tags = /** @type {Record<string, string>} */ (await npmFetch.json(`/-/package/${escaped(name)}/dist-tags`, { ...options, spec: name }));
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
      /** @type {Record<string, unknown>} */
      const kept = {};
      for (const version of versionsOf.get(name) ?? []) {
        const doc = versions.get(`${name}@${version}`);
        if (doc !== undefined) kept[version] = doc;
      }
      packuments[name] = { name, 'dist-tags': tags, versions: kept };
    }),
  ),
);

// In name order, whatever order the answers came in: a refresh differs only where the registry does.
const ordered = Object.fromEntries(names.map((name) => [name, packuments[name]]));
const recording = { recordedAt: new Date().toISOString(), sets, missing: missing.sort(), packuments: ordered };
await mkdir(join(output, '..'), { recursive: true });
const bytes = gzipSync(JSON.stringify(recording), { level: 9 });
await writeFile(output, bytes);
process.stderr.write(`${versions.size} version documents of ${names.length} packages (${missing.length} missing) → ${output} (${bytes.length} bytes)\n`);
