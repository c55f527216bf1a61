import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built service: test/global-setup.ts builds it once per run when a source is newer than
 * dist/, and the tests start its processes from dist/src/cli.js (as `npm start` does): a process
 * started through tsx compiled the whole service again, four times the CPU of the built one, which
 * on a loaded 2-core machine made start-ups the suite's slowest steps.
 */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BUILT_CLI = join(ROOT, 'dist', 'src', 'cli.js');
/** tsc -b rewrites its build info on every build that found a change (and touches it when sources were only touched). */
const BUILD_STAMP = join(ROOT, 'dist', 'tsconfig.build.tsbuildinfo');
/** What dist/src is compiled from (tsconfig.build.json). */
const BUILD_INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json'];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

/** Whether dist/ is missing or older than a source it is built from. */
export function buildIsStale(): boolean {
  if (!existsSync(BUILT_CLI) || !existsSync(BUILD_STAMP)) return true;
  const built = statSync(BUILD_STAMP).mtimeMs;
  return BUILD_INPUTS.some((input) => newestMtime(join(ROOT, input)) > built);
}

/**
 * Builds when dist/ is stale (`npm ci` builds through `prepare`, so a clean clone never is; after
 * an edit the incremental build takes seconds), failing with the build's output when it fails.
 */
export function ensureBuilt(): void {
  if (!buildIsStale()) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (build.status !== 0) throw new Error(`dist/ is older than the sources and \`npm run build\` failed (${build.status ?? build.signal}):\n${build.stdout}${build.stderr}`);
}

