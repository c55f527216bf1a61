import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Arborist from '@npmcli/arborist';
import type npaFunction from 'npm-package-arg';
import type { StandaloneOutcome, StandaloneProject, StandaloneResolver } from './build.js';
import { dirname } from './common.js';
import { readManifest, type DependencyField, type Manifest } from './manifest.js';
import type { Declaration } from '../../model/model.js';
import { parseNpmLock, type PackageLock } from './parse-npm-lock.js';
import { TransientAnalysisError } from '../../model/types.js';
import type { NpmOptions } from './options.js';
import { resolutionFailureDetail } from './resolution-detail.js';
import { lazily, requirePackage } from '../../model/lazy-require.js';

class ResolutionTimeout extends Error {}

/** Error codes of an impossible request (the manifest asks for what the registry cannot give). */
const IMPOSSIBLE = new Set(['ETARGET', 'E404', 'EINVALIDTAGNAME', 'EINVALIDPACKAGENAME', 'EUNSUPPORTEDPROTOCOL', 'EJSONPARSE', 'ERESOLVE']);

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** Most requirements one resolution leaves out before it gives up on the manifest. */
const MAX_UNRESOLVABLE = 20;

/** npm's spec parser, for a failed resolution's message only: a run from a lockfile never loads it (nor its semver). */
const npa = lazily(() => requirePackage('npm-package-arg') as typeof npaFunction);

const DEPENDENCY_FIELDS: readonly DependencyField[] = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

/** The package an impossible request was about (a missing package or version), when the error says. */
function impossiblePackage(error: unknown): string | null {
  const e = error as { code?: unknown; name?: unknown; pkgid?: unknown } | null;
  if (e?.code === 'ETARGET' && typeof e.name === 'string') return e.name;
  if (e?.code === 'E404' && typeof e.pkgid === 'string') {
    try {
      return npa()(e.pkgid).name ?? null;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * The project without `name` among the direct requirements of its manifests, with what was
 * dropped recorded; null when no manifest declares it (a transitive dependency is at fault).
 */
function withoutRequirement(project: StandaloneProject, name: string, dropped: Declaration[]): StandaloneProject | null {
  const before = dropped.length;
  const strip = (m: Manifest): Manifest => {
    const raw: Record<string, unknown> = { ...m.raw };
    for (const field of DEPENDENCY_FIELDS) {
      const range = m[field][name];
      if (range === undefined) continue;
      dropped.push({ manifest: m.path, name, range, kind: field });
      raw[field] = Object.fromEntries(Object.entries(m[field]).filter(([key]) => key !== name));
    }
    return readManifest(m.path, raw);
  };
  const next = { manifest: strip(project.manifest), members: project.members.map(strip) };
  return dropped.length > before ? next : null;
}

async function writeProject(root: string, project: StandaloneProject): Promise<Map<string, Manifest>> {
  const base = dirname(project.manifest.path);
  const manifests = new Map<string, Manifest>([['', project.manifest]]);
  await writeFile(join(root, 'package.json'), JSON.stringify(project.manifest.raw));
  for (const member of project.members) {
    const rel = dirname(member.path).slice(base === '' ? 0 : base.length + 1);
    await mkdir(join(root, rel), { recursive: true });
    await writeFile(join(root, rel, 'package.json'), JSON.stringify(member.raw));
    manifests.set(rel, member);
  }
  return manifests;
}

function deadline<T>(work: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ResolutionTimeout()), ms);
    const abort = (): void => reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    });
  });
}

/**
 * Resolves a manifest without a lockfile against the registry with npm's Arborist (an ideal
 * tree, nothing installed, no scripts), then reads the tree as npm would write its lockfile.
 * A deadline gives `resolution_timeout` (the fetches in flight finish in the background);
 * an impossible range gives `resolution_failed`; registry trouble is transient.
 */
export function arboristResolver(npmOptions: NpmOptions | (() => Promise<NpmOptions>), timeoutMs: number): StandaloneResolver {
  return async (project, signal): Promise<StandaloneOutcome> => {
    // Arborist (and pacote, sigstore, cacache… behind it) is loaded by the first manifest to
    // resolve, with the npm options: an analysis of lockfiles alone needs neither.
    const [options, { default: ArboristClass }] = await Promise.all([typeof npmOptions === 'function' ? npmOptions() : npmOptions, import('@npmcli/arborist')]);
    const root = await mkdtemp(join(tmpdir(), 'pkgscope-resolve-'));
    const manifestPath = project.manifest.path;
    try {
      let current = project;
      let manifests = await writeProject(root, current);
      const build = async (legacyPeerDeps: boolean): Promise<PackageLock> => {
        const arboristOptions: Arborist.Options = {
          ...options,
          path: root,
          legacyPeerDeps,
          ignoreScripts: true,
          audit: false,
          fund: false,
          progress: false,
          workspacesEnabled: true,
          lockfileVersion: 3,
        };
        const arborist = new ArboristClass(arboristOptions);
        const tree = await deadline(arborist.buildIdealTree({}), timeoutMs, signal);
        return tree.meta?.commit() as unknown as PackageLock;
      };
      const notices: string[] = [];
      const buildWithPeers = async (): Promise<PackageLock> => {
        try {
          return await build(false);
        } catch (error) {
          if (codeOf(error) !== 'ERESOLVE') throw error;
          // Conflicting peer ranges: resolve as `npm install --legacy-peer-deps` would, and say so.
          notices.push(`${manifestPath}: peer dependency conflicts; resolved as with --legacy-peer-deps`);
          return build(true);
        }
      };
      // A requirement the registry cannot satisfy is left out and kept as a declaration, so one
      // missing package does not cost the inventory of all the others.
      const dropped: Declaration[] = [];
      const details: string[] = [];
      let lock: PackageLock | null = null;
      while (lock === null) {
        try {
          lock = await buildWithPeers();
        } catch (error) {
          const name = impossiblePackage(error);
          const next = name === null || dropped.length >= MAX_UNRESOLVABLE ? null : withoutRequirement(current, name, dropped);
          if (next === null) throw error;
          const detail = resolutionFailureDetail(error, codeOf(error) ?? '');
          details.push(detail);
          notices.push(`${manifestPath}: ${detail}; it is listed unresolved`);
          current = next;
          manifests = await writeProject(root, current);
        }
      }
      const declared = [project.manifest, ...project.members].reduce((n, m) => n + DEPENDENCY_FIELDS.reduce((k, f) => k + Object.keys(m[f]).length, 0), 0);
      if (dropped.length > 0 && dropped.length === declared) {
        // Nothing the manifests ask for could be had: that is a failed resolution, not an inventory.
        return { failed: { manifest: manifestPath, outcome: 'resolution_failed', detail: details.join('; ') } };
      }
      const { inventory, covers } = parseNpmLock({ path: manifestPath, dir: dirname(manifestPath), manifests }, lock);
      return {
        inventory: { ...inventory, declarations: [...inventory.declarations, ...dropped], notices: [...notices, ...inventory.notices] },
        covers,
      };
    } catch (error) {
      if (error instanceof ResolutionTimeout) {
        return { failed: { manifest: manifestPath, outcome: 'resolution_timeout', detail: `not resolved within ${timeoutMs} ms` } };
      }
      if (signal?.aborted === true) throw error;
      const code = codeOf(error);
      if (code !== null && IMPOSSIBLE.has(code)) {
        return { failed: { manifest: manifestPath, outcome: 'resolution_failed', detail: resolutionFailureDetail(error, code) } };
      }
      throw new TransientAnalysisError(`resolving ${manifestPath} failed`, { cause: error });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  };
}
