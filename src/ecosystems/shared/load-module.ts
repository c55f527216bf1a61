import { createRequire } from 'node:module';

/**
 * A module of an ecosystem folder, imported when first needed: `imported` is the folder's own
 * `import('./x.js')` (so the CLI's bundler, scripts/bundle-cli.js, makes it a chunk loaded on
 * demand), `url` the importing module's `import.meta.url`. Running from the sources in a worker
 * thread under tsx (the tests' analysis threads), a dynamic import of a TypeScript module is not
 * resolved: there the `.ts` file beside `url` is required through tsx's CommonJS hook instead.
 * Built code always imports.
 */
export async function loadModule<T>(url: string, path: string, imported: () => Promise<T>): Promise<T> {
  try {
    return await imported();
  } catch (error) {
    if (!url.endsWith('.ts') || (error as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return createRequire(url)(path.replace(/\.js$/, '.ts')) as T;
  }
}
