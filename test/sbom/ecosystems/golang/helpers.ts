import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { golangEcosystem } from '../../../../src/ecosystems/golang/analysis.js';
import type { EcosystemInventory } from '../../../../src/ecosystems/types.js';
import type { Occurrence } from '../../../../src/model/model.js';
import type { InputFile } from '../../../../src/model/types.js';
import { buildThrough, components, rootsOf } from '../../../helpers/ecosystem.js';
import { FIXTURES } from '../../../helpers/fixtures.js';

export const GO_FIXTURES = join(FIXTURES, 'lockfiles', 'golang');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** The files of a fixture set, with upload paths relative to the set. */
export function goFixture(set: string): InputFile[] {
  const root = join(GO_FIXTURES, set);
  return walk(root)
    .sort()
    .map((p) => ({ path: relative(root, p), content: readFileSync(p, 'utf8') }));
}

/** Claims and builds files through the ecosystem, as the pipeline does (offline: no metadata). */
export function buildGo(files: readonly InputFile[]): Promise<EcosystemInventory> {
  return buildThrough(golangEcosystem(null), files);
}

export { components, rootsOf };

export const coordinate = (o: Occurrence): string => `${o.name}@${o.version ?? '-'}`;

/**
 * An independent reading of a go.mod's requirements, with nothing but line splitting: every line of
 * a `require ( … )` block and every single-line `require`, as [path, version, indirect].
 */
export function requiresOf(goMod: string): [string, string, boolean][] {
  const out: [string, string, boolean][] = [];
  let inBlock = false;
  for (const raw of goMod.split('\n')) {
    const line = raw.trim();
    if (line === 'require (') {
      inBlock = true;
      continue;
    }
    if (inBlock && line === ')') {
      inBlock = false;
      continue;
    }
    const body = inBlock ? line : line.startsWith('require ') ? line.slice('require '.length) : null;
    if (body === null || body === '' || body.startsWith('//')) continue;
    const [code = '', comment = ''] = body.split('//');
    const [path = '', version = ''] = code.trim().split(/\s+/);
    out.push([path.replace(/"/g, ''), version, /^\s*indirect(;|$)/.test(comment)]);
  }
  return out;
}
