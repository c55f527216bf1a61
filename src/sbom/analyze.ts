import { createRequire } from 'node:module';
import type * as Matcher from '../advisories/match/index.js';
import type { AdvisoryLookup, VulnerabilityReport } from '../advisories/types.js';
import { renderCycloneDx } from './render/cyclonedx.js';
import type { Coordinate, Enricher, EnrichmentResult } from '../model/enrich-types.js';
import { evidenceOf } from './evidence.js';
import { detectFiles } from './detect.js';
import { mergeInventory } from '../ecosystems/shared/builder.js';
import { createEcosystems, offlineEcosystems } from '../ecosystems/analysis.js';
import type { StandaloneResolver } from '../ecosystems/npm/build.js';
import { npmEcosystem } from '../ecosystems/npm/analysis.js';
import type { RegistryKey } from '../ecosystems/index.js';
import type { Ecosystem, RegistryAccess, RegistryEndpoint } from '../ecosystems/types.js';
import { coordinateKey } from '../model/metadata.js';
import type { AnalysisEnvironment } from '../model/environment.js';
import { emptyInventory, type Inventory, type Occurrence } from '../model/model.js';
import { oneProjectPerFolder } from './projects.js';
import type { RenderInput } from './render/input.js';
import { BoundedOutput } from './render/output.js';
import { renderSpdx } from './render/spdx.js';
import { renderText } from './render/text.js';
import { validateCycloneDx } from './validate/cyclonedx.js';
import { validateSpdx } from './validate/spdx.js';
import {
  AnalysisError,
  MAX_OUTPUT_BYTES,
  MEDIA_TYPES,
  TransientAnalysisError,
  type AnalysisPhase,
  type AnalysisProgress,
  type AnalysisResult,
  type FileProblem,
  type InputFile,
  type OutputFormat,
  type ProgressCounts,
} from '../model/types.js';

export type { StandaloneResolver };

export interface AnalyzeDeps {
  /** Registry metadata; without one, components carry only what the lockfiles record. */
  readonly registry?: Enricher | null;
  /**
   * The ecosystems to detect and build with (`createEcosystems`). Without them: every ecosystem
   * offline, npm resolving standalone manifests with `resolver` when one is given.
   */
  readonly ecosystems?: readonly Ecosystem[];
  /** npm's resolver of standalone manifests, used only when `ecosystems` is not given. */
  readonly resolver?: StandaloneResolver | null;
  /**
   * Registry access to build the ecosystems with when `ecosystems` is not given: what an analysis
   * thread receives instead of the main thread's ecosystem objects (functions do not cross).
   */
  readonly registryAccess?: RegistryAccess | null;
  /** The platform the request says the project installs on (Python markers); absent: the defaults. */
  readonly environment?: AnalysisEnvironment | null;
  readonly onProgress?: (progress: AnalysisProgress) => void;
  readonly signal?: AbortSignal;
  readonly maxOutputBytes?: number;
  /** Awaited at the start of each phase; lets a caller hold the analysis at a known point. */
  readonly checkpoint?: (phase: AnalysisPhase) => Promise<void>;
  readonly now?: () => Date;
  /**
   * Where advisories are looked up when the request asked for vulnerabilities; absent: none are
   * matched (and the matcher is never loaded).
   */
  readonly advisories?: AdvisoryLookup | null;
}

const RENDERERS = { cyclonedx: renderCycloneDx, spdx: renderSpdx, text: renderText } as const;

/**
 * Renders under the bound, then validates. A CycloneDX document is validated as the value it was
 * written from, before its text is joined: the value is let go when this returns, so the two are
 * never held together with the text (in a 65 MB document, a few hundred MB less at the peak).
 */
function renderValidated(format: OutputFormat, input: RenderInput, out: BoundedOutput): void {
  const written: unknown = RENDERERS[format](input, out);
  if (format === 'cyclonedx') validateCycloneDx(() => out.toString(), written);
  if (format === 'spdx') validateSpdx(out.toString());
}

function ecosystemsOf(deps: AnalyzeDeps): readonly Ecosystem[] {
  if (deps.ecosystems) return deps.ecosystems;
  const access = deps.registryAccess;
  if (access) {
    const registries: Partial<Record<RegistryKey, RegistryEndpoint>> = {};
    for (const [key, base] of Object.entries(access.bases) as [RegistryKey, string][]) registries[key] = { base, http: access.http };
    return createEcosystems({
      npm: { resolver: deps.resolver ?? null, metadata: null },
      registries,
      ...(access.resolutionTimeoutMs === undefined ? {} : { resolutionTimeoutMs: access.resolutionTimeoutMs }),
      ...(access.mavenAllowedRepositories === undefined ? {} : { mavenAllowedRepositories: access.mavenAllowedRepositories }),
    });
  }
  const offline = offlineEcosystems();
  if (!deps.resolver) return offline;
  return offline.map((e) => (e.id === 'npm' ? npmEcosystem({ resolver: deps.resolver ?? null, metadata: null }) : e));
}

/** Errors that are the analysis's own verdicts or the caller's doing, passed on unchanged. */
function isExpected(error: unknown, signal: AbortSignal | undefined): boolean {
  return error instanceof AnalysisError || error instanceof TransientAnalysisError || signal?.aborted === true;
}

/**
 * The matcher, loaded only by an analysis that asks for vulnerabilities. From the sources in a
 * worker thread under tsx (the tests' analysis threads) a dynamic import of a TypeScript module is
 * not resolved: it is required through tsx's CommonJS hook there, as ecosystems/index.ts does.
 */
async function matchAdvisories(inventory: Inventory, lookup: AdvisoryLookup, signal: AbortSignal | undefined): Promise<VulnerabilityReport> {
  let matcher: typeof Matcher;
  try {
    matcher = await import('../advisories/match/index.js');
  } catch (error) {
    if (!import.meta.url.endsWith('.ts') || (error as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    matcher = createRequire(import.meta.url)('../advisories/match/index.ts') as typeof Matcher;
  }
  return matcher.matchVulnerabilities(inventory.occurrences, lookup, signal ? { signal } : {});
}

/**
 * The analysis: detect → build per ecosystem (parse, associate, resolve) → enrich → render →
 * validate. Pure apart from the registry access its deps provide; the same in the API, a worker
 * and the CLI, and the same for every ecosystem.
 */
export async function analyze(files: readonly InputFile[], format: OutputFormat, deps: AnalyzeDeps = {}): Promise<AnalysisResult> {
  const counts: ProgressCounts = {};
  const report = (phase: AnalysisPhase): void => deps.onProgress?.({ phase, counts: { ...counts } });
  const enter = async (phase: AnalysisPhase): Promise<void> => {
    deps.signal?.throwIfAborted();
    report(phase);
    await deps.checkpoint?.(phase);
  };

  const ecosystems = ecosystemsOf(deps);
  const byId = new Map(ecosystems.map((e) => [e.id, e]));
  const detection = detectFiles(files, ecosystems);
  const problems: FileProblem[] = detection.unclaimed.map((path) => ({
    path,
    reason: 'not_recognised',
    message: 'not a manifest or lockfile of any supported ecosystem',
  }));
  if (detection.claims.size === 0) {
    throw new AnalysisError('no_manifest_evidence', 'no manifest or lockfile recognised', { problems });
  }
  // The ecosystems met load now (only npm is loaded with the process).
  await Promise.all([...detection.claims.keys()].map((ecosystem) => ecosystem.prepare?.() ?? Promise.resolve()));
  counts.manifests_total = 0;
  for (const [ecosystem, claimed] of detection.claims) {
    counts.manifests_total += ecosystem.countManifests?.(claimed) ?? claimed.filter((f) => f.role === 'manifest').length;
  }
  counts.manifests_done = 0;
  await enter('resolving');

  const inventory: Inventory = emptyInventory();
  for (const [ecosystem, claimed] of detection.claims) {
    const ctx = {
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(deps.environment ? { environment: deps.environment } : {}),
      onManifestDone: () => {
        counts.manifests_done = (counts.manifests_done ?? 0) + 1;
        report('resolving');
      },
    };
    try {
      const part = await ecosystem.build(claimed, ctx);
      mergeInventory(inventory, part.inventory);
      for (const p of part.problems) problems.push(p);
    } catch (error) {
      if (isExpected(error, deps.signal)) throw error;
      // A parser's own bug must not fail the other ecosystems' files; the files are named.
      for (const f of claimed) problems.push({ path: f.path, reason: 'malformed', message: `could not be read as ${ecosystem.label} ${f.kind}` });
      inventory.notices.push(`${claimed.map((f) => f.path).join(', ')} could not be read`);
    }
  }
  const resolvedAny = inventory.resolutions.some((r) => r.outcome === 'lockfile' || r.outcome === 'resolved');
  // Components beyond the roots are evidence even when no manifest resolved: a Maven POM's direct
  // dependencies whose exact versions the upload states (the document is then partial).
  const declaredComponents = inventory.occurrences.length > inventory.roots.length;
  if (!resolvedAny && inventory.lockfiles.length === 0 && !declaredComponents) {
    const timedOut = inventory.resolutions.length > 0 && inventory.resolutions.every((r) => r.outcome === 'resolution_timeout');
    if (inventory.resolutions.length === 0) {
      throw new AnalysisError('no_manifest_evidence', 'no manifest or lockfile could be read', { problems });
    }
    throw new AnalysisError(timedOut ? 'resolution_timeout' : 'resolution_failed', 'no manifest could be resolved', { problems });
  }
  // A lockfile that could not be read beside others that could: the inventory lacks its entries,
  // so the evidence says partial and names it (its diagnostic, with line and column, is in problems).
  const recorded = new Set(inventory.lockfiles.map((l) => l.path));
  for (const claimed of detection.claims.values()) {
    for (const f of claimed) {
      const problem = f.role === 'lockfile' && !recorded.has(f.path) ? problems.find((p) => p.path === f.path) : undefined;
      if (problem !== undefined) inventory.resolutions.push({ manifest: f.path, outcome: 'unparsable', detail: problem.message ?? problem.reason });
    }
  }
  oneProjectPerFolder(inventory);
  counts.resolved = inventory.occurrences.length;

  const coordinates = new Map<string, Coordinate>();
  for (const o of inventory.occurrences) {
    // Only registry packages have registry metadata; tarball, git and file sources keep their own.
    if (o.version !== null && o.source === 'registry') {
      coordinates.set(coordinateKey(o.ecosystem, o.name, o.version), { ecosystem: o.ecosystem, name: o.name, version: o.version });
    }
  }
  counts.coordinates_total = coordinates.size;
  counts.coordinates_done = 0;
  await enter('enriching');
  // Advisories are matched beside the enrichment: the match reads only the lockfile facts.
  const vulnerabilities = deps.advisories ? matchAdvisories(inventory, deps.advisories, deps.signal) : null;
  // Handled here too: a failed enrichment must not leave the match's failure unobserved.
  vulnerabilities?.catch(() => undefined);
  const enrichment: EnrichmentResult = deps.registry
    ? await deps.registry.enrich([...coordinates.values()], (c) => {
        Object.assign(counts, c);
        report('enriching');
      }, deps.signal)
    : { metadata: new Map(), failed: [], notConsulted: coordinates.size };
  // The enricher's last counts, also when its progress reached someone else (an analysis thread's
  // enrichment runs on the main thread, which reports it).
  Object.assign(counts, enrichment.counts);
  counts.coordinates_done = coordinates.size;
  const matched = vulnerabilities === null ? null : await vulnerabilities;

  await enter('rendering');
  const input: RenderInput = {
    inventory,
    metadata: enrichment.metadata,
    failedCoordinates: enrichment.failed,
    evidence: evidenceOf(inventory, enrichment.failed, enrichment),
    generatedAt: deps.now?.() ?? new Date(),
    purl: (o: Occurrence) => byId.get(o.ecosystem)?.purl(o) ?? null,
    ecosystemLabels: new Map(ecosystems.map((e) => [e.id, e.label])),
    ...(matched === null ? {} : { vulnerabilities: matched }),
  };
  const out = new BoundedOutput(deps.maxOutputBytes ?? MAX_OUTPUT_BYTES);
  renderValidated(format, input, out);
  return { document: out.toString(), mediaType: MEDIA_TYPES[format], byteSize: out.byteSize, counts: { ...counts }, problems };
}
