import type { FileProblem } from '../../model/types.js';
import { AnalysisError, TransientAnalysisError } from '../../model/types.js';
import { RegistryUnreachableError, unreachableReasonWords } from '../../model/registry-unreachable.js';
import { GraphBuilder, mergeInventory } from '../shared/builder.js';
import { emptyInventory, type Inventory } from '../../model/model.js';
import type { ClaimedFile, Ecosystem, RegistryEndpoint } from '../types.js';
import { folderOf } from './data.js';
import { claimPython } from './detect.js';
import { declarationOf, readPipfile, readPyProject, readSetupCfg, type Declared, type PyProject } from './manifest.js';
import { pep503, pinnedVersion } from './names.js';
import { parsePdmLock, parsePipfileLock, parsePoetryLock } from './parse-locks.js';
import { parsePylock } from './parse-pylock.js';
import { joinRequirements, type RequirementsPart } from './join-requirements.js';
import { parseRequirements } from './parse-requirements.js';
import { parseUvLock } from './parse-uv-lock.js';
import { pypiPurl } from './purl.js';
import type { PythonEnvironment } from '../../model/environment.js';
import { completeEnvironment } from './markers.js';
import { pypiMetadataClient } from './registry.js';
import { resolvePypi, type ResolveOptions } from './resolve.js';
import { problemOf } from '../shared/problems.js';

/** A file that could not be read, as the caller's diagnostics say it. */
/**
 * Python: poetry.lock, uv.lock, pdm.lock, Pipfile.lock, pylock.toml and pinned requirements files
 * are the record; pyproject.toml, Pipfile, setup.cfg and `.in` files are manifests, covered by a
 * lockfile of their folder, else resolved against PyPI when a registry is configured (pinned
 * requirements are components either way; offline, the rest stay declarations). Resolution
 * evaluates PEP 508 markers for one environment: the documented default (CPython 3.12 on Linux
 * x86_64), the factory's `environment`, then the request's (`BuildContext.environment.python`).
 */
export function pypiEcosystem(registry: RegistryEndpoint | null, options: { readonly environment?: PythonEnvironment } = {}): Ecosystem {
  return {
    id: 'pypi',
    label: 'Python',
    metadata: registry === null ? null : pypiMetadataClient(registry),
    claim: claimPython,
    countManifests: (files) => files.filter((f) => f.role === 'manifest').length,
    async build(files, ctx) {
      const inventory = emptyInventory();
      const problems: FileProblem[] = [];
      const lockedFolders = new Set(files.filter((f) => f.role === 'lockfile').map((f) => folderOf(f.path)));
      const projects = new Map<string, PyProject>();
      const toolSettings = new Set<string>();
      for (const f of files.filter((x) => x.kind === 'pyproject')) {
        try {
          const project = readPyProject(f.path, f.content);
          // Tool settings alone (ruff, mypy, black): nothing to resolve, no project to name.
          if (project.isManifest) projects.set(folderOf(f.path), project);
          else toolSettings.add(f.path);
        } catch (error) {
          if (error instanceof AnalysisError && error.problems.some((p) => p.limit !== undefined)) throw error;
          problems.push(problemOf(f, error));
        }
      }
      // A request's environment overrides the factory's, which overrides the documented default.
      const environment = completeEnvironment({ ...options.environment, ...ctx.environment?.python });
      const pipfiles = new Map(files.filter((f) => f.kind === 'pipfile').map((f) => [folderOf(f.path), f.path]));
      const requirements: RequirementsPart[] = [];
      for (const f of files) {
        const folder = folderOf(f.path);
        if (toolSettings.has(f.path)) {
          ctx.onManifestDone();
          continue;
        }
        try {
          let part: Inventory | null = null;
          if (f.kind === 'uv-lock') {
            part = parseUvLock(f.path, f.content);
            const project = projects.get(folder);
            if (project) {
              part.associations.push({ manifest: project.path, lockfile: f.path, role: 'root' });
              part.resolutions.push({ manifest: project.path, outcome: 'lockfile', detail: null });
            }
          }
          if (f.kind === 'poetry-lock') part = parsePoetryLock(f.path, f.content, projects.get(folder) ?? null);
          if (f.kind === 'pdm-lock') part = parsePdmLock(f.path, f.content, projects.get(folder) ?? null);
          if (f.kind === 'pipfile-lock') part = parsePipfileLock(f.path, f.content, pipfiles.get(folder) ?? null);
          if (f.kind === 'pylock') part = parsePylock(f.path, f.content);
          if (f.kind === 'requirements') {
            // Read whole first: files joined by -r/-c (or sharing a folder) are one environment.
            const { inventory: own, includes } = parseRequirements(f.path, f.content);
            requirements.push({ path: f.path, inventory: own, includes });
          }
          if (part === null && f.role === 'manifest' && !lockedFolders.has(folder)) {
            const resolution = await manifestOnly(f, projects.get(folder), registry === null ? null : { registry, environment, ...(ctx.signal ? { signal: ctx.signal } : {}) });
            part = resolution.inventory;
            if (resolution.unreachable !== null) {
              problems.push({ path: f.path, reason: 'registry_unreachable', message: `PyPI could not be reached (${unreachableReasonWords(resolution.unreachable.reason)}): only its pinned requirements are components` });
            }
            for (const d of resolution.unresolved) {
              problems.push({ path: f.path, reason: 'unresolvable', message: `no release of ${d.requirement.name} matches ${d.requirement.specifier || 'any version'}`, package: d.requirement.name });
            }
          }
          if (part !== null) mergeInventory(inventory, part);
          if (f.role === 'manifest' && lockedFolders.has(folder) && f.kind !== 'pyproject' && f.kind !== 'pipfile') {
            // A `.in` or setup.cfg beside a lockfile is what the lockfile was compiled from.
            inventory.associations.push({ manifest: f.path, lockfile: null, role: 'root' });
            inventory.resolutions.push({ manifest: f.path, outcome: 'lockfile', detail: null });
          }
        } catch (error) {
          // Over a limit fails the analysis; a registry in trouble retries it; a broken file is skipped.
          if (error instanceof AnalysisError && error.problems.some((p) => p.limit !== undefined)) throw error;
          if (error instanceof TransientAnalysisError || ctx.signal?.aborted === true) throw error;
          problems.push(problemOf(f, error));
          inventory.notices.push(`${f.path} could not be read`);
        }
        if (f.role === 'manifest') ctx.onManifestDone();
      }
      mergeInventory(inventory, joinRequirements(requirements));
      if (registry !== null && inventory.resolutions.some((r) => r.outcome === 'resolved')) {
        // Which environment the markers were evaluated for decides the set: say it.
        inventory.notices.push(
          `Python requirements were resolved for ${environment.platform_python_implementation} ${environment.python_full_version} on ${environment.sys_platform} ${environment.platform_machine} (PEP 508 markers evaluated for that environment)`,
        );
      }
      return { inventory, problems };
    },
    purl: pypiPurl,
  };
}

/**
 * A manifest no lockfile covers: its exactly pinned requirements are components (the files state
 * them); the others are resolved against PyPI when a registry is configured (else, or where that
 * fails, they stay declarations).
 */
async function manifestOnly(
  f: ClaimedFile,
  project: PyProject | undefined,
  resolve: ResolveOptions | null,
): Promise<{ inventory: Inventory; unresolved: readonly Declared[]; unreachable: RegistryUnreachableError | null }> {
  let declared: readonly Declared[] = [];
  let name: string | null = null;
  let version: string | null = null;
  if (f.kind === 'pyproject' && project) ({ declared, name, version } = project);
  if (f.kind === 'pipfile') declared = readPipfile(f.path, f.content);
  if (f.kind === 'setup-cfg') declared = readSetupCfg(f.content);
  if (f.kind === 'requirements-in') declared = parseRequirementsIn(f);
  if (resolve !== null) {
    const b = new GraphBuilder(f.path, 'pypi', pep503);
    const root = name === null ? null : b.root('', { name, version, installPath: '' });
    try {
      const { unresolved } = await resolvePypi(b, root, declared, resolve);
      for (const d of unresolved) b.unresolved(declarationOf(f.path, d));
      b.manifest(f.path, unresolved.length === declared.length && declared.length > 0 ? 'resolution_failed' : 'resolved', unresolved.length === 0 ? null : `${unresolved.length} requirement(s) could not be resolved`, 'standalone');
      return { inventory: b.finish(null, 'graph'), unresolved, unreachable: null };
    } catch (error) {
      // PyPI cannot be connected to: the analysis degrades to what the manifest pins, as offline.
      if (!(error instanceof RegistryUnreachableError)) throw error;
      return { ...pinnedOnly(f, declared, name, version, `PyPI could not be reached (${unreachableReasonWords(error.reason)})`), unreachable: error };
    }
  }
  return { ...pinnedOnly(f, declared, name, version, null), unreachable: null };
}

/** The manifest's exactly pinned requirements as components, the others declarations: offline, or `unreached` (why PyPI was not asked). */
function pinnedOnly(f: ClaimedFile, declared: readonly Declared[], name: string | null, version: string | null, unreached: string | null): { inventory: Inventory; unresolved: readonly Declared[] } {
  const b = new GraphBuilder(f.path, 'pypi', pep503);
  const root = name === null ? null : b.root('', { name, version, installPath: '' });
  let unresolved = 0;
  for (const d of declared) {
    const pinned = pinnedVersion(d.requirement.specifier);
    if (pinned === null || d.requirement.url !== null) {
      b.unresolved(declarationOf(f.path, d));
      unresolved++;
      continue;
    }
    const o = b.add(pep503(d.requirement.name), { name: d.requirement.name, version: pinned, source: 'registry', dev: d.scope === 'dev', optional: d.scope === 'optional' });
    if (root) b.edge(root, o, d.scope === 'prod' ? 'prod' : d.scope);
  }
  const detail =
    unreached === null
      ? unresolved === 0 ? null : `${unresolved} requirement(s) are not pinned and no registry is available to resolve them`
      : `${unreached}: ${unresolved === 0 ? 'the pinned requirements’ own dependencies are unknown' : `${unresolved} requirement(s) are not pinned`}`;
  b.manifest(f.path, 'resolution_failed', detail, 'standalone');
  return { inventory: b.finish(null, 'recorded'), unresolved: [] };
}

function parseRequirementsIn(f: ClaimedFile): Declared[] {
  const { inventory } = parseRequirements(f.path, f.content);
  // An `.in` file's pins (rare) are declarations like its ranges: it is an input, not a lock.
  return [...inventory.declarations, ...inventory.occurrences.map((o) => ({ manifest: f.path, name: o.name, range: `==${o.version ?? ''}`, kind: 'requirements', ecosystem: 'pypi' }))].flatMap(
    (d) => {
      const scope: Declared['scope'] = 'prod';
      return [{ requirement: { name: d.name, extras: [], specifier: d.range, url: null, marker: null }, kind: d.kind, scope }];
    },
  );
}
