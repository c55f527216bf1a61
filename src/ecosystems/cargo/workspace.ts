import picomatch from 'picomatch';
import { dirOf, inheritFrom, type CargoManifest } from './manifest.js';

/**
 * Which path packages of a Cargo.lock are the project's own crates (workspace members: roots of
 * the document) and which are path dependencies outside it (components with a `file` source),
 * decided from the uploaded manifests the way Cargo decides membership:
 * - the root manifest beside Cargo.lock is a member when it has a `[package]`;
 * - `[workspace] members` (globs allowed) minus `exclude` are members;
 * - a path dependency of a member inside the workspace folder is a member too (Cargo makes it one);
 * - without a `[workspace]`, the root package is the only member.
 * A path package is a path dependency (not a member) only on evidence: its manifest was uploaded
 * and is not a member, or a member's path dependency points outside the workspace folder or into
 * an excluded one. Without evidence (no root manifest, a member manifest missing from the
 * upload) it is taken for a member: Cargo.lock records members and path dependencies alike, and
 * inside a workspace folder (the usual case) every path dependency is a member.
 * `default-members` only chooses what a bare `cargo build` builds; every member stays a root.
 */
export interface WorkspaceView {
  /** The lockfile's folder in the upload. */
  readonly dir: string;
  /** The manifest beside the lockfile, when uploaded. */
  readonly root: CargoManifest | null;
  /** Member manifests (workspace inheritance applied), by package name. */
  readonly members: ReadonlyMap<string, CargoManifest>;
  /** Whether a path package of that name (and version, when given) is a member. */
  isMember(name: string, version: string | null): boolean;
  /** Every uploaded manifest this lockfile covers, with its role. */
  readonly covered: readonly { readonly manifest: CargoManifest; readonly role: 'root' | 'workspace' }[];
}

function inside(dir: string, parent: string): boolean {
  return parent === '' ? !dir.startsWith('..') : dir === parent || dir.startsWith(`${parent}/`);
}

function relativeTo(dir: string, parent: string): string {
  return parent === '' ? dir : dir === parent ? '' : dir.slice(parent.length + 1);
}

function matcher(patterns: readonly string[]): (dir: string) => boolean {
  const cleaned = patterns.map((p) => p.replace(/^\.\//, '').replace(/\/+$/, '')).filter((p) => p !== '');
  if (cleaned.length === 0) return () => false;
  const match = picomatch(cleaned, { dot: true });
  return (dir) => match(dir);
}

export function workspaceFor(lockPath: string, manifests: readonly CargoManifest[]): WorkspaceView {
  const dir = dirOf(lockPath);
  const root = manifests.find((m) => m.dir === dir) ?? null;
  const ws = root?.workspace ?? null;
  const below = manifests.filter((m) => m !== root && inside(m.dir, dir) && m.package !== null);

  const memberDirs = new Set<string>();
  const isListed = matcher(ws?.members ?? []);
  const isExcluded = matcher(ws?.exclude ?? []);
  if (root?.package) memberDirs.add(dir);
  if (ws !== null) {
    for (const m of below) {
      const rel = relativeTo(m.dir, dir);
      if (isListed(rel) && !isExcluded(rel)) memberDirs.add(m.dir);
    }
  } else if (root === null) {
    for (const m of below) memberDirs.add(m.dir);
  }
  // Path dependencies of members that live inside the workspace folder become members as well,
  // transitively (a queue over folders, each visited once). Path dependencies that point outside
  // it, or into an excluded folder, are evidence that a crate is not a member.
  const byDir = new Map(manifests.map((m) => [m.dir, m]));
  const outside = new Set<string>();
  const queue = [...memberDirs];
  for (let i = 0; i < queue.length; i++) {
    const m = byDir.get(queue[i] ?? '');
    if (m === undefined) continue;
    for (const dep of inheritFrom(m, root).dependencies) {
      if (dep.path === null) continue;
      if (ws === null || !inside(dep.path, dir) || isExcluded(relativeTo(dep.path, dir))) {
        outside.add(dep.name);
      } else if (!memberDirs.has(dep.path)) {
        memberDirs.add(dep.path);
        queue.push(dep.path);
      }
    }
  }

  const members = new Map<string, CargoManifest>();
  const covered: { manifest: CargoManifest; role: 'root' | 'workspace' }[] = [];
  if (root !== null) covered.push({ manifest: root, role: 'root' });
  for (const d of memberDirs) {
    const m = byDir.get(d);
    if (m === undefined) continue;
    const resolved = inheritFrom(m, root);
    if (resolved.package !== null) members.set(resolved.package.name, resolved);
    if (m !== root) covered.push({ manifest: m, role: 'workspace' });
  }
  // Uploaded manifests that are not members: their crates are path dependencies.
  const nonMembers = new Set(below.filter((m) => !memberDirs.has(m.dir)).map((m) => m.package?.name));

  return {
    dir,
    root,
    members,
    covered,
    isMember(name, version) {
      const member = members.get(name);
      if (member !== undefined) {
        const known = member.package?.version.value ?? null;
        return version === null || known === null || known === version;
      }
      if (root === null) return true;
      // Without [workspace] the root package is the only member.
      if (ws === null || nonMembers.has(name) || outside.has(name)) return false;
      // A member whose manifest was not uploaded (listed under `members`, or a path dependency
      // of an unseen member): in a workspace folder, a crate without contrary evidence is a member.
      return true;
    },
  };
}
