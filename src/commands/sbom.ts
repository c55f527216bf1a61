import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { basename, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { DiskMetadataCache } from '../registry/disk-cache.js';
import { ConfigError, packageRegistriesFrom } from '../config.js';
import { registryAnalysis } from '../registry/analysis.js';
import { analyze, type AnalyzeDeps } from '../sbom/analyze.js';
import { offlineEcosystems } from '../sbom/ecosystems/index.js';
import { AnalysisError, OUTPUT_FORMATS, type InputFile, type OutputFormat } from '../sbom/types.js';
import { UsageError, type CommandIo } from './tokens.js';

export const SBOM_USAGE = `usage: pkgscope sbom [--format cyclonedx|spdx|text] [--output FILE] [--offline] PATH...

PATH is a manifest or lockfile, or a folder searched for them (node_modules and .git skipped).
Registry metadata comes from your npm configuration and is cached under ~/.cache/pkgscope.

exit codes: 0 document written; 1 the analysis failed (its failure code is printed);
            2 usage error; 3 an input could not be read or the output written`;

const ECOSYSTEMS = offlineEcosystems();

/** Files searched for in folders: those some ecosystem claims by their name alone. */
function isKnownName(name: string): boolean {
  return ECOSYSTEMS.some((e) => e.claim({ path: name, content: '' })?.by === 'name');
}
const SKIP = new Set(['node_modules', '.git', '.yarn', '.pnpm-store']);

export class InputError extends Error {}

/** `searched` receives the files found by searching a folder (not named by the user). */
async function collect(path: string, into: string[], searched: Set<string>): Promise<void> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new InputError(`cannot read ${path}`);
  }
  if (info.isFile()) {
    into.push(path);
    return;
  }
  if (!info.isDirectory()) return;
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.isDirectory() && !SKIP.has(entry.name)) await collect(join(path, entry.name), into, searched);
    else if (entry.isFile() && isKnownName(entry.name)) {
      into.push(join(path, entry.name));
      searched.add(join(path, entry.name));
    }
  }
}

/** Upload paths: relative to the deepest folder holding every input, `/`-separated. */
export async function readInputs(paths: readonly string[]): Promise<InputFile[]> {
  const found: string[] = [];
  const searched = new Set<string>();
  for (const p of paths) await collect(resolve(p), found, searched);
  if (found.length === 0) throw new InputError('no manifest or lockfile found in the given paths');
  const dirs = found.map((f) => resolve(f, '..'));
  let base = dirs[0] ?? process.cwd();
  while (!dirs.every((d) => d === base || d.startsWith(base + sep))) base = resolve(base, '..');
  const files: InputFile[] = [];
  for (const file of [...new Set(found)].sort()) {
    const bytes = await readFile(file);
    // A binary lockfile found in a folder (bun.lockb) is passed over; one named explicitly is refused.
    if (!isUtf8(bytes) && searched.has(file)) continue;
    if (!isUtf8(bytes)) throw new InputError(`${file} is not UTF-8 text`);
    files.push({ path: relative(base, file).split(sep).join('/') || basename(file), content: bytes.toString('utf8') });
  }
  return files;
}

/** `pkgscope sbom …`: the same analysis as a job, in-process, with no Postgres or Redis. */
export async function sbomCommand(
  argv: readonly string[],
  io: CommandIo & { readonly progress: ((line: string) => void) | null; readonly writeOut: (text: string) => void },
  resolutionTimeoutMs: number,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      format: { type: 'string', default: 'cyclonedx' },
      output: { type: 'string', short: 'o' },
      offline: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    io.out(SBOM_USAGE);
    return 0;
  }
  const format = values.format as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${OUTPUT_FORMATS.join(', ')}`);
  if (positionals.length === 0) throw new UsageError(SBOM_USAGE);

  let files: InputFile[];
  try {
    files = await readInputs(positionals);
  } catch (error) {
    if (error instanceof InputError) {
      io.err(`pkgscope: ${error.message}`);
      return 3;
    }
    throw error;
  }
  let registries;
  try {
    registries = packageRegistriesFrom(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`pkgscope: ${error.problems.join('; ')}`);
      return 2;
    }
    throw error;
  }
  const online = values.offline ? null : await registryAnalysis({ cache: new DiskMetadataCache(), resolutionTimeoutMs, packageRegistries: registries });
  const deps: AnalyzeDeps = online === null ? {} : { registry: online.registry, ecosystems: online.ecosystems };
  const progress = io.progress;
  try {
    const result = await analyze(files, format, {
      ...deps,
      ...(progress
        ? {
            onProgress: (p) => {
              const c = p.counts;
              const total = c.coordinates_total === undefined ? '' : ` ${c.coordinates_done ?? 0}/${c.coordinates_total}`;
              progress(`${p.phase}${total}`);
            },
          }
        : {}),
    });
    if (values.output === undefined) {
      io.writeOut(result.document);
    } else {
      try {
        await writeFile(values.output, result.document);
      } catch {
        io.err(`pkgscope: cannot write ${values.output}`);
        return 3;
      }
      io.err(`wrote ${values.output} (${result.byteSize} bytes, ${format})`);
    }
    return 0;
  } catch (error) {
    if (error instanceof AnalysisError) {
      io.err(`pkgscope: analysis failed: ${error.code}`);
      for (const p of error.problems) {
        const at = p.line === undefined ? '' : `:${p.line}${p.column === undefined ? '' : `:${p.column}`}`;
        io.err(`  ${p.path}${at}: ${p.message}${p.package === undefined ? '' : ` (${p.package})`} [${p.reason}]`);
      }
      return 1;
    }
    throw error;
  } finally {
    await online?.close();
  }
}
