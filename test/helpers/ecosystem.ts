import type { ClaimedFile, Ecosystem, EcosystemInventory } from '../../src/ecosystems/types.js';
import type { Occurrence } from '../../src/model/model.js';
import type { InputFile } from '../../src/model/types.js';

/** Claims and builds files through one ecosystem, as the pipeline does. */
export async function buildThrough(eco: Ecosystem, files: readonly InputFile[]): Promise<EcosystemInventory> {
  const claimed: ClaimedFile[] = [];
  for (const f of files) {
    const claim = eco.claim(f);
    if (claim) claimed.push({ ...f, ...claim });
  }
  return eco.build(claimed, { onManifestDone: () => undefined });
}

/** The occurrences that are not roots: the document's components. */
export function components(result: EcosystemInventory): Occurrence[] {
  const roots = new Set(result.inventory.roots);
  return result.inventory.occurrences.filter((o) => !roots.has(o.ref));
}

export function rootsOf(result: EcosystemInventory): Occurrence[] {
  const roots = new Set(result.inventory.roots);
  return result.inventory.occurrences.filter((o) => roots.has(o.ref));
}
