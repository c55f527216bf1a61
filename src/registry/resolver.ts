import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Arborist from '@npmcli/arborist';
import type { StandaloneResolver } from '../sbom/analyze.js';
import type { StandaloneOutcome, StandaloneProject } from '../sbom/inventory.js';
import type { Manifest } from '../sbom/manifest.js';
import { dirname } from '../sbom/parsers/common.js';
import { parseNpmLock, type PackageLock } from '../sbom/parsers/npm-lock.js';
import { TransientAnalysisError } from '../sbom/types.js';
import type { NpmOptions } from './npm-options.js';
import { resolutionFailureDetail } from './resolution-detail.js';

class ResolutionTimeout extends Error {}

/** Error codes of an impossible request (the manifest asks for what the registry cannot give). */
const IMPOSSIBLE = new Set(['ETARGET', 'E404', 'EINVALIDTAGNAME', 'EINVALIDPACKAGENAME', 'EUNSUPPORTEDPROTOCOL', 'EJSONPARSE', 'ERESOLVE']);

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
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
export function arboristResolver(options: NpmOptions, timeoutMs: number): StandaloneResolver {
  return async (project, signal): Promise<StandaloneOutcome> => {
    const root = await mkdtemp(join(tmpdir(), 'pkgscope-resolve-'));
    const manifestPath = project.manifest.path;
    try {
      const manifests = await writeProject(root, project);
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
        const arborist = new Arborist(arboristOptions);
        const tree = await deadline(arborist.buildIdealTree({}), timeoutMs, signal);
        return tree.meta?.commit() as unknown as PackageLock;
      };
      let lock: PackageLock;
      const notices: string[] = [];
      try {
        lock = await build(false);
      } catch (error) {
        if (codeOf(error) !== 'ERESOLVE') throw error;
        // Conflicting peer ranges: resolve as `npm install --legacy-peer-deps` would, and say so.
        lock = await build(true);
        notices.push(`${manifestPath}: peer dependency conflicts; resolved as with --legacy-peer-deps`);
      }
      const parsed = parseNpmLock({ path: manifestPath, dir: dirname(manifestPath), manifests }, lock);
      return {
        ...parsed,
        notices: [...notices, ...parsed.notices],
        record: { ...parsed.record, kind: 'resolved', version: null },
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
