import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DiskMetadataCache } from '../ecosystems/shared/disk-cache.js';
import { CLI_REGISTRY_CONCURRENCY, ConfigError, registrySettingsFrom } from '../config.js';
import { registryAnalysis } from '../sbom/registry-analysis.js';
import { analyze, type AnalyzeDeps } from '../sbom/analyze.js';
import type { Enricher, EnrichmentResult } from '../model/enrich-types.js';
import { checkEnvironment, type AnalysisEnvironment } from '../model/environment.js';
import { AnalysisError, OUTPUT_FORMATS, type InputFile, type OutputFormat } from '../model/types.js';
import { InputError, readInputs, SKIPPED_BY_DEFAULT, skippedNotice } from './sbom-inputs.js';
import { UsageError, type CommandIo } from './usage.js';
import { openAdvisories, type OpenedAdvisories } from './sbom-advisories.js';

export const SBOM_USAGE = `usage: pkgscope sbom [--format cyclonedx|spdx|text] [--output FILE] [--offline]
                    [--exclude GLOB]... [--include GLOB]... [--python-env KEY=VALUE]...
                    [--vulnerabilities] [--advisories PATH]... PATH...

PATH is a manifest or lockfile, or a folder searched for them. In folders, node_modules and .git
are never read, and fixture and vendor folders are skipped (and named on stderr):
  ${SKIPPED_BY_DEFAULT.slice(0, 6).join(', ')},
  ${SKIPPED_BY_DEFAULT.slice(6).join(', ')}
--exclude GLOB  leave out files and folders matching GLOB (relative to the folder: 'examples/**')
--include GLOB  read files matching GLOB even inside a skipped folder ('vendor/acme/**')
--python-env KEY=VALUE  a PEP 508 marker variable to resolve Python manifests for
                (python_version=3.11, sys_platform=win32, …; default CPython 3.12 on Linux x86_64)
--vulnerabilities  match the components against security advisories (OSV) and write what
                affects them: from the service's advisory mirror at DATABASE_URL (filled by
                \`pkgscope advisories import\` or its sync), unless --advisories is given
--advisories PATH  read advisories from an OSV zip (<Ecosystem>/all.zip) or a folder of OSV
                JSON instead, no service needed (repeatable; implies --vulnerabilities)
Registry metadata comes from your npm configuration and is cached under ~/.cache/pkgscope.

exit codes: 0 document written; 1 the analysis failed (its failure code is printed);
            2 usage error; 3 an input could not be read or the output written`;

/** `--python-env KEY=VALUE`, repeated, as the API's `environment` (checked by the same rules). */
function pythonEnvironmentOf(pairs: readonly string[]): AnalysisEnvironment | null {
  if (pairs.length === 0) return null;
  const python: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--python-env takes KEY=VALUE, not ${JSON.stringify(pair)}`);
    python[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const checked = checkEnvironment({ python });
  if (!checked.ok) throw new UsageError(`--python-env: ${checked.detail.replace(/^environment\.python\./, '')}`);
  return checked.environment;
}

/** `pkgscope sbom …`: the same analysis as a job, in-process, with no Postgres or Redis. */
export async function sbomCommand(
  argv: readonly string[],
  io: CommandIo & { readonly progress: ((line: string) => void) | null; readonly writeOut: (text: string) => void },
  resolutionTimeoutMs: number,
  /** Concurrent registry metadata requests (`REGISTRY_CONCURRENCY`). */
  registryConcurrency = CLI_REGISTRY_CONCURRENCY,
  /** The service's database (`DATABASE_URL`): the advisory mirror `--vulnerabilities` reads without `--advisories`. */
  databaseUrl: string | null = null,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      format: { type: 'string', default: 'cyclonedx' },
      output: { type: 'string', short: 'o' },
      offline: { type: 'boolean', default: false },
      exclude: { type: 'string', multiple: true, default: [] },
      include: { type: 'string', multiple: true, default: [] },
      'python-env': { type: 'string', multiple: true, default: [] },
      vulnerabilities: { type: 'boolean', default: false },
      advisories: { type: 'string', multiple: true, default: [] },
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
  const environment = pythonEnvironmentOf(values['python-env']);

  let files: InputFile[];
  try {
    const collected = await readInputs(positionals, { exclude: values.exclude, include: values.include });
    files = collected.files;
    if (collected.skipped.length > 0) io.err(skippedNotice(collected.skipped));
  } catch (error) {
    if (error instanceof InputError) {
      io.err(`pkgscope: ${error.message}`);
      return 3;
    }
    throw error;
  }
  let registries;
  try {
    registries = registrySettingsFrom(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`pkgscope: ${error.problems.join('; ')}`);
      return 2;
    }
    throw error;
  }
  // Advisories are read before the analysis: a path or database that cannot be read stops here.
  let advisories: OpenedAdvisories | null = null;
  if (values.vulnerabilities || values.advisories.length > 0) {
    const opened = await openAdvisories(values.advisories, databaseUrl, io);
    if (opened === null) return 3;
    advisories = opened;
  }
  const online = values.offline ? null : await registryAnalysis({ cache: new DiskMetadataCache(), resolutionTimeoutMs, concurrency: registryConcurrency, ...registries });
  // The enrichment's own account (hosts that could not be reached), for the warnings below.
  let enrichment: EnrichmentResult | null = null;
  const registry: Enricher | null =
    online === null
      ? null
      : {
          enrich: async (coordinates, onProgress, signal) => (enrichment = await online.registry.enrich(coordinates, onProgress, signal)),
        };
  const deps: AnalyzeDeps = {
    ...(online === null ? {} : { registry, ecosystems: online.ecosystems }),
    ...(advisories === null ? {} : { advisories: advisories.lookup }),
  };
  const progress = io.progress;
  try {
    const result = await analyze(files, format, {
      ...deps,
      environment,
      ...(progress
        ? {
            onProgress: (p) => {
              const c = p.counts;
              const total = c.coordinates_total === undefined ? '' : ` ${c.coordinates_done ?? 0}/${c.coordinates_total}`;
              const failed = (c.fetch_failed ?? 0) > 0 ? ` (${c.fetch_failed} failed)` : '';
              progress(`${p.phase}${total}${failed}`);
            },
          }
        : {}),
    });
    for (const line of degradationWarnings(enrichment)) io.err(line);
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
    // Nothing in flight is waited for once the document is out (a lookup no one needs keeps the process alive).
    await online?.destroy();
    await advisories?.close();
  }
}

/** One warning per registry host that could not be reached, and one if the enrichment ran out of time. */
function degradationWarnings(enrichment: EnrichmentResult | null): string[] {
  const lines = (enrichment?.unreachable ?? []).map(
    (u) => `pkgscope: warning: ${u.registry} registry ${u.origin} unreachable (${u.reason}); ${u.coordinates} packages left unenriched`,
  );
  const spent = enrichment?.outOfBudget;
  if (spent !== undefined) {
    lines.push(`pkgscope: warning: registry metadata took longer than its budget of ${Math.round(spent.budgetMs / 1000)} s; ${spent.coordinates} packages left unenriched`);
  }
  return lines;
}
