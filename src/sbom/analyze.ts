import { renderCycloneDx } from './render/cyclonedx.js';
import type { Enricher } from './enrich-types.js';
import { evidenceOf } from './evidence.js';
import { detect } from './detect.js';
import { buildInventory, type StandaloneOutcome, type StandaloneProject } from './inventory.js';
import { coordinateKey } from './metadata.js';
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
  type AnalysisPhase,
  type AnalysisProgress,
  type AnalysisResult,
  type InputFile,
  type OutputFormat,
  type ProgressCounts,
} from './types.js';

/** Resolves a manifest that no lockfile covers (against the registry), or says why it could not. */
export type StandaloneResolver = (project: StandaloneProject, signal: AbortSignal | undefined) => Promise<StandaloneOutcome>;

export interface AnalyzeDeps {
  /** Registry metadata; without one, components carry only what the lockfiles record. */
  readonly registry?: Enricher | null;
  readonly resolver?: StandaloneResolver | null;
  readonly onProgress?: (progress: AnalysisProgress) => void;
  readonly signal?: AbortSignal;
  readonly maxOutputBytes?: number;
  /** Awaited at the start of each phase; lets a caller hold the analysis at a known point. */
  readonly checkpoint?: (phase: AnalysisPhase) => Promise<void>;
  readonly now?: () => Date;
}

const RENDERERS = { cyclonedx: renderCycloneDx, spdx: renderSpdx, text: renderText } as const;

function validate(format: OutputFormat, document: string): void {
  if (format === 'cyclonedx') validateCycloneDx(document);
  if (format === 'spdx') validateSpdx(document);
}

/**
 * The analysis: detect → parse and associate → resolve → enrich → render → validate.
 * Pure apart from the registry access its deps provide; the same in the API, a worker and the CLI.
 */
export async function analyze(files: readonly InputFile[], format: OutputFormat, deps: AnalyzeDeps = {}): Promise<AnalysisResult> {
  const counts: ProgressCounts = {};
  const report = (phase: AnalysisPhase): void => deps.onProgress?.({ phase, counts: { ...counts } });
  const enter = async (phase: AnalysisPhase): Promise<void> => {
    deps.signal?.throwIfAborted();
    report(phase);
    await deps.checkpoint?.(phase);
  };

  const detection = detect(files);
  if (detection.files.length === 0) throw new AnalysisError('no_manifest_evidence', 'no manifest or lockfile recognised');
  counts.manifests_total = detection.files.filter((d) => d.kind === 'package-json').length;
  counts.manifests_done = 0;
  await enter('resolving');
  const resolver = deps.resolver;
  const inventory = await buildInventory(
    detection,
    (project) =>
      resolver
        ? resolver(project, deps.signal)
        : Promise.resolve({
            failed: { manifest: project.manifest.path, outcome: 'resolution_failed', detail: 'no registry is available to resolve it' },
          }),
    () => {
      counts.manifests_done = (counts.manifests_done ?? 0) + 1;
      report('resolving');
    },
  );
  const resolvedAny = inventory.resolutions.some((r) => r.outcome === 'lockfile' || r.outcome === 'resolved');
  if (!resolvedAny && inventory.resolutions.length > 0 && inventory.lockfiles.length === 0) {
    const timedOut = inventory.resolutions.every((r) => r.outcome === 'resolution_timeout');
    throw new AnalysisError(timedOut ? 'resolution_timeout' : 'resolution_failed', 'no manifest could be resolved');
  }
  counts.resolved = inventory.occurrences.length;

  const coordinates = new Map<string, { name: string; version: string }>();
  for (const o of inventory.occurrences) {
    // Only registry packages have registry metadata; tarball, git and file sources keep their own.
    if (o.version !== null && o.source === 'registry') {
      coordinates.set(coordinateKey(o.name, o.version), { name: o.name, version: o.version });
    }
  }
  counts.coordinates_total = coordinates.size;
  counts.coordinates_done = 0;
  await enter('enriching');
  const enrichment = deps.registry
    ? await deps.registry.enrich([...coordinates.values()], (c) => {
        Object.assign(counts, c);
        report('enriching');
      }, deps.signal)
    : { metadata: new Map(), failed: [] };
  counts.coordinates_done = coordinates.size;

  await enter('rendering');
  const input: RenderInput = {
    inventory,
    metadata: enrichment.metadata,
    failedCoordinates: enrichment.failed,
    evidence: evidenceOf(inventory, enrichment.failed),
    generatedAt: deps.now?.() ?? new Date(),
  };
  const out = new BoundedOutput(deps.maxOutputBytes ?? MAX_OUTPUT_BYTES);
  RENDERERS[format](input, out);
  const document = out.toString();
  validate(format, document);
  return { document, mediaType: MEDIA_TYPES[format], byteSize: out.byteSize, counts: { ...counts } };
}
