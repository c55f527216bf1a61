// @ts-check
/**
 * Records real published versions of every package named in the bench lockfile
 * (bench/fixtures/large/package-lock.json) into bench/fixtures/scale/versions.json, from which
 * bench/scale-lockfile.ts builds its 50,000-entry monorepo:
 *
 *   npx tsx scripts/record-scale-names.js
 *
 * The registry and its credentials come from the user's npm configuration, read by npm's own
 * libraries; each name's packument (the abbreviated one npm installs from) gives its version list.
 * Kept per name: up to PER_NAME versions spread evenly over its releases in version order, the
 * `latest` tag's version always among them; prereleases only for a name that has no release.
 * Names the registry does not know are left out. The output is `{ name: [versions…] }`, names
 * sorted and each list in ascending version order, so a refresh differs only where the registry does.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pacote from 'pacote';
import pLimit from 'p-limit';
import semver from 'semver';
import { loadNpmOptions } from '../src/ecosystems/npm/options.js';

const PER_NAME = 25;

const root = fileURLToPath(new URL('..', import.meta.url));
const lockfile = join(root, 'bench', 'fixtures', 'large', 'package-lock.json');
const output = join(root, 'bench', 'fixtures', 'scale', 'versions.json');

/** @param {unknown} error */
const statusOf = (error) => /** @type {{ statusCode?: unknown } | null} */ (error)?.statusCode;

const lock = /** @type {{ packages: Record<string, { name?: string; link?: boolean }> }} */ (JSON.parse(await readFile(lockfile, 'utf8')));
/** @type {Set<string>} */
const wanted = new Set();
for (const [path, entry] of Object.entries(lock.packages)) {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0 || entry.link === true) continue;
  wanted.add(entry.name ?? path.slice(at + 'node_modules/'.length));
}
const names = [...wanted].sort();

/**
 * Up to `count` of `all` (ascending), evenly spread, the first and last included, `latest` too.
 * @param {string[]} all
 * @param {string | undefined} latest
 * @param {number} count
 */
function spread(all, latest, count) {
  if (all.length <= count) return all;
  /** @type {Set<string>} */
  const picked = new Set();
  for (let i = 0; i < count; i++) picked.add(/** @type {string} */ (all[Math.round((i * (all.length - 1)) / (count - 1))]));
  if (latest !== undefined && all.includes(latest) && !picked.has(latest)) {
    // Replace the pick nearest below `latest`, keeping the count.
    const below = [...picked].filter((v) => semver.lt(v, latest)).sort(semver.rcompare)[0];
    if (below !== undefined) picked.delete(below);
    picked.add(latest);
  }
  return [...picked].sort(semver.compare);
}

const options = { ...(await loadNpmOptions()), fullMetadata: false, preferOnline: true };
/** @type {Record<string, string[]>} */
const recorded = {};
/** @type {string[]} */
const missing = [];
const limit = pLimit(16);
let done = 0;
await Promise.all(
  names.map((name) =>
    limit(async () => {
      try {
        const packument = await pacote.packument(name, options);
        const valid = Object.keys(packument.versions).filter((v) => semver.valid(v) !== null);
        const releases = valid.filter((v) => semver.prerelease(v) === null);
        const pool = (releases.length > 0 ? releases : valid).sort(semver.compare);
        if (pool.length > 0) recorded[name] = spread(pool, packument['dist-tags']['latest'], PER_NAME);
        else missing.push(name);
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
        missing.push(name);
      }
      if (++done % 200 === 0) process.stderr.write(`${done}/${names.length} packuments\n`);
    }),
  ),
);

const ordered = Object.fromEntries(Object.keys(recorded).sort().map((name) => [name, recorded[name]]));
await mkdir(join(output, '..'), { recursive: true });
const text = `${JSON.stringify(ordered, null, 0).replaceAll('],"', '],\n"')}\n`;
await writeFile(output, text);
const count = Object.values(ordered).reduce((n, list) => n + (list?.length ?? 0), 0);
process.stderr.write(
  `${count} versions of ${Object.keys(ordered).length} names (${missing.length} unknown: ${missing.sort().join(', ') || 'none'}) → ${output} (${text.length} bytes)\n`,
);
