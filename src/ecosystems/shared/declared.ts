import type { Inventory } from '../../model/model.js';
import { GraphBuilder } from './builder.js';

/** A requirement of a manifest, in the ecosystem's words (see `Declaration`). */
export interface Declared {
  readonly name: string;
  readonly range: string;
  readonly kind: string;
}

/**
 * A manifest no lockfile covers, where the ecosystem runs no resolution: its project as the root,
 * its requirements as declarations, and the manifest `resolution_failed` with `detail`.
 */
export function declaredOnly(path: string, ecosystem: string, root: { readonly name: string; readonly version: string | null }, declared: Iterable<Declared>, detail: string): Inventory {
  const b = new GraphBuilder(path, ecosystem);
  b.root('', { name: root.name, version: root.version, installPath: '' });
  for (const d of declared) b.unresolved({ manifest: path, name: d.name, range: d.range, kind: d.kind, ecosystem });
  b.manifest(path, 'resolution_failed', detail, 'standalone');
  return b.finish(null, 'unknown');
}
