import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The web console's built files (`vite build` of `console/` into `dist/console/`): the page and
 * its hashed assets, read once into memory. Only names listed in the assets folder are served, so
 * no request path ever reaches the file system.
 */

export interface ConsoleAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

export interface ConsoleBuild {
  readonly page: Buffer;
  /** By file name (flat: Vite writes hashed names into one folder). */
  readonly assets: ReadonlyMap<string, ConsoleAsset>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** A Vite asset name: `name-<hash>.ext`, nothing that could climb out of the folder. */
export const ASSET_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.[A-Za-z0-9]+$/;

/** `dist/console/` of this package, whether running from `src/` (tsx, vitest) or `dist/src/`. */
export function defaultConsoleDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  // From dist/src/routes the walk stops at the package root too: dist/ holds no package.json.
  return join(dir, 'dist', 'console');
}

/** The build, or null when it is missing (only `tsc` was run). */
export function loadConsoleBuild(directory: string): ConsoleBuild | null {
  const index = join(directory, 'index.html');
  if (!existsSync(index)) return null;
  const assets = new Map<string, ConsoleAsset>();
  const assetsDir = join(directory, 'assets');
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) {
      const file = join(assetsDir, name);
      if (!ASSET_NAME.test(name) || !statSync(file).isFile()) continue;
      assets.set(name, { body: readFileSync(file), contentType: CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream' });
    }
  }
  return { page: readFileSync(index), assets };
}
