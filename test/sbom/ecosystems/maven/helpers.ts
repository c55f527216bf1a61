import { mavenEcosystem, type MavenEcosystemOptions } from '../../../../src/sbom/ecosystems/maven/index.js';
import type { ClaimedFile, EcosystemInventory, RegistryEndpoint } from '../../../../src/sbom/ecosystems/types.js';
import type { Occurrence } from '../../../../src/sbom/model.js';
import type { InputFile } from '../../../../src/sbom/types.js';

/** Claims and builds files through the ecosystem, as the pipeline does. */
export async function buildJvm(files: readonly InputFile[], registry: RegistryEndpoint | null = null, options: MavenEcosystemOptions = {}): Promise<EcosystemInventory> {
  const eco = mavenEcosystem(registry, options);
  const claimed: ClaimedFile[] = [];
  for (const f of files) {
    const claim = eco.claim(f);
    if (claim) claimed.push({ ...f, ...claim });
  }
  return eco.build(claimed, { onManifestDone: () => undefined });
}

export function components(result: EcosystemInventory): Occurrence[] {
  const roots = new Set(result.inventory.roots);
  return result.inventory.occurrences.filter((o) => !roots.has(o.ref));
}

export function rootsOf(result: EcosystemInventory): Occurrence[] {
  const roots = new Set(result.inventory.roots);
  return result.inventory.occurrences.filter((o) => roots.has(o.ref));
}

export const coordinate = (o: Occurrence): string => `${o.name}:${o.version ?? '-'}`;

/** `g:a:v` of every component, sorted, with ` dev` / ` optional` / ` ?` (scope unknown) marks. */
export function scoped(result: EcosystemInventory): string[] {
  return components(result)
    .map((o) => `${coordinate(o)}${!o.scopeKnown ? ' ?' : o.dev ? ' dev' : o.optional ? ' optional' : ''}`)
    .sort();
}
