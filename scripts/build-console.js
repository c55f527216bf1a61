// @ts-check
/**
 * `vite build` of the console, skipped when dist/console/ is newer than everything it is built
 * from (console/, the Vite config, the lock file and the src/ modules the console imports), so
 * `npm start` rebuilds only what changed. `--force` always builds.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist', 'console', 'index.html');

/** @param {string} path @returns {string[]} */
function files(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => files(join(path, name)));
}

const sources = files(join(root, 'console'));
// Modules of the service the console shares (labels keyed by the job's phases, counts, formats).
const shared = new Set(
  sources
    .filter((file) => /\.tsx?$/.test(file))
    .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/from '(?:\.\.\/)+src\/([^']+)\.js'/g)].map((m) => join(root, 'src', `${m[1] ?? ''}.ts`))),
);
const inputs = [...sources, ...shared, join(root, 'vite.config.ts'), join(root, 'package-lock.json')];

const stale = process.argv.includes('--force') || !existsSync(built) || inputs.some((file) => statSync(file).mtimeMs > statSync(built).mtimeMs);
if (stale) await build({ configFile: join(root, 'vite.config.ts') });
else process.stdout.write('console: dist/console is up to date\n');
