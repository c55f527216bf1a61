// @ts-check
/**
 * Bundles `pkgscope sbom` (dist/src/commands/sbom.js, as tsc wrote it) into dist/cli/: the
 * command's module, each deferred ecosystem as a chunk loaded with its first file, and the
 * packages they import statically (the CycloneDX library, packageurl-js, the SPDX parsers…).
 * Loading them as some 180 separate modules — resolving each path, reading its package.json,
 * lexing CommonJS for its named exports — took about 90 ms of every run, an eighth of a warm run
 * on a 2,700-entry lockfile; one file spares nearly all of it. The rest keeps its own files:
 *   - packages imported dynamically (npm's Arborist, pacote, undici…), which a run loads only
 *     when it resolves or fetches, and packages required through `requirePackage` (the parsers of
 *     other formats, Ajv): loaded from node_modules as before, when needed;
 *   - files the modules locate from their own `import.meta.url` (the built CycloneDX validator):
 *     each bundled module's `import.meta.url` is rewritten to its original file's URL, relative to
 *     the bundle, so it finds them where tsc and the validator build put them;
 *   - the modules dist/src/cli.js imports itself (configuration, usage errors), which the bundle
 *     imports from their files too (see cliModules). They must stay few and light: configuration
 *     once imported the ecosystem index, which left every ecosystem's code (npm's parsers too)
 *     out of the bundle as some 60 files loaded one by one (test/cli/cli-startup.test.ts);
 *   - the ecosystems' package sources and inspections, which the command never runs (SERVICE_ONLY).
 * The service does not use the bundle: its processes load dist/src. test/cli/cli-bundle.test.ts
 * checks that the bundle writes the same documents as the modules it is made from.
 */
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist', 'cli');
const entry = join(root, 'dist', 'src', 'commands', 'sbom.js');

/**
 * The modules dist/src/cli.js loads itself (configuration, usage, errors): the bundle imports
 * them from their files rather than holding copies, so that both sides share one instance of
 * each (cli.js tells a UsageError thrown by the command by `instanceof`).
 */
async function cliModules() {
  const { metafile } = await build({
    entryPoints: [join(root, 'dist', 'src', 'cli.js')],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
    plugins: [
      {
        name: 'static-own-modules',
        setup: (bundler) => bundler.onResolve({ filter: /.*/ }, (args) => (args.kind === 'entry-point' || (args.kind !== 'dynamic-import' && /^\.\.?\//.test(args.path)) ? undefined : { path: args.path, external: true })),
      },
    ],
  });
  const outside = /** @type {Set<string>} */ (new Set());
  for (const input of Object.keys(metafile.inputs)) outside.add(join(root, input));
  return outside;
}

const shared = await cliModules();

/**
 * Modules a registration reaches that `pkgscope sbom` never runs: the ecosystems' package
 * sources and inspections (the service's listing and package pages). Bundled, they would pull
 * the HTTP stack into chunks and split the modules they share with the analysis out of the
 * command's file into a score of small chunks it loads at every start; they stay files.
 */
const SERVICE_ONLY = /[\\/]dist[\\/]src[\\/]ecosystems[\\/][^\\/]+[\\/](source|inspect)\.js$/;

/** How a module of outdir imports (or locates) the file at `path`. */
const relativeImport = (/** @type {string} */ path) => `./${relative(outdir, path).split('\\').join('/')}`;

await rm(outdir, { recursive: true, force: true });
const result = await build({
  metafile: true,
  entryPoints: [entry],
  absWorkingDir: root,
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  // Bundled CommonJS requires node's built-ins (and the optional packages left out) by `require`.
  banner: { js: "import { createRequire as __pkgscopeCreateRequire } from 'node:module'; const require = __pkgscopeCreateRequire(import.meta.url);" },
  plugins: [
    {
      name: 'pkgscope-cli',
      setup(bundler) {
        // One instance each, imported from their files: the modules cli.js loads itself, and the
        // validator's runtime helpers (the built validator requires them from beside itself).
        bundler.onResolve({ filter: /^\.\.?\// }, (args) => {
          if (args.importer.includes(join('node_modules', ''))) return undefined;
          const path = join(args.resolveDir, args.path);
          return shared.has(path) || path.endsWith('.cjs') || SERVICE_ONLY.test(path) ? { path: relativeImport(path), external: true } : undefined;
        });
        bundler.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.path.startsWith('node:') || args.kind === 'dynamic-import') return { path: args.path, external: true };
          if (!args.importer.includes(join('node_modules', ''))) return undefined;
          // A package's optional dependency that is not installed (the CycloneDX library's XML
          // and validation plugins try them in turn) stays a runtime `require`, which it catches.
          try {
            createRequire(args.importer).resolve(args.path);
            return undefined;
          } catch {
            return { path: args.path, external: true };
          }
        });
        bundler.onLoad({ filter: /[\\/]dist[\\/]src[\\/].*\.js$/ }, async (args) => {
          const text = await readFile(args.path, 'utf8');
          if (!text.includes('import.meta.url')) return undefined;
          // Chunks are written flat in outdir, so one relative path serves whichever holds the module.
          const original = `new URL(${JSON.stringify(relativeImport(args.path))}, import.meta.url).href`;
          return { contents: text.replaceAll('import.meta.url', original), loader: 'js', resolveDir: dirname(args.path) };
        });
      },
    },
  ],
});

// `--report`: each output file's bytes by package, to see what a change pulls into the bundle.
if (process.argv.includes('--report')) {
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    const packages = new Map();
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const key = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? 'pkgscope';
      packages.set(key, (packages.get(key) ?? 0) + bytesInOutput);
    }
    process.stdout.write(`${file} ${output.bytes} bytes: ${[...packages].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
  }
}
