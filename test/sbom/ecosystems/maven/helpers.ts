import { mavenEcosystem, type MavenEcosystemOptions } from '../../../../src/ecosystems/maven/analysis.js';
import type { EcosystemInventory, RegistryEndpoint } from '../../../../src/ecosystems/types.js';
import type { Occurrence } from '../../../../src/model/model.js';
import type { InputFile } from '../../../../src/model/types.js';
import { buildThrough, components, rootsOf } from '../../../helpers/ecosystem.js';

export { components, rootsOf };

/** Claims and builds files through the ecosystem, as the pipeline does. */
export function buildJvm(files: readonly InputFile[], registry: RegistryEndpoint | null = null, options: MavenEcosystemOptions = {}): Promise<EcosystemInventory> {
  return buildThrough(mavenEcosystem(registry, options), files);
}

export const coordinate = (o: Occurrence): string => `${o.name}:${o.version ?? '-'}`;

/** `g:a:v` of every component, sorted, with ` dev` / ` optional` / ` ?` (scope unknown) marks. */
export function scoped(result: EcosystemInventory): string[] {
  return components(result)
    .map((o) => `${coordinate(o)}${!o.scopeKnown ? ' ?' : o.dev ? ' dev' : o.optional ? ' optional' : ''}`)
    .sort();
}
