import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectiveModel, type Gav, type PomRef } from '../../../../src/ecosystems/maven/effective.js';
import { parsePom } from '../../../../src/ecosystems/maven/parse-pom.js';
import { resolveGraph, type PomSource } from '../../../../src/ecosystems/maven/resolve.js';
import { deps, pomXml } from '../../../helpers/maven-repository.js';

/** resolve.ts over POMs in memory: no HTTP, the rules alone. */
function memory(poms: Record<string, string>): PomSource {
  const get = async (gav: Gav): Promise<PomRef | null> => {
    const text = poms[`${gav.groupId}:${gav.artifactId}:${gav.version}`];
    return text === undefined ? null : { pom: parsePom(text), path: null };
  };
  return { pom: get, bom: get, parent: async (child) => (child.pom.parent === null ? null : get(child.pom.parent)), versions: async () => null };
}

async function resolve(project: string, poms: Record<string, string>, maxDepth = 40) {
  const source = memory(poms);
  const model = await effectiveModel({ pom: parsePom(project), path: 'pom.xml' }, source);
  const graph = await resolveGraph(model, source, { maxPoms: 500, maxDepth });
  return [...graph.artifacts.values()].map((a) => `${a.groupId}:${a.artifactId}:${a.version} ${a.scope} ${a.depth}`);
}

describe('the resolver over POMs in memory', () => {
  it('terminates on a dependency cycle and keeps each artifact once', async () => {
    const poms = { 'c:a:1': pomXml('c:a:1', deps('c:b:1')), 'c:b:1': pomXml('c:b:1', deps('c:a:1')) };
    expect(await resolve(pomXml('p:p:1', deps('c:a:1')), poms)).toEqual(['c:a:1 compile 1', 'c:b:1 compile 2']);
  });

  it('a runtime dependency of a compile dependency is runtime; a compile one of a runtime dependency is runtime', async () => {
    const poms = { 'c:a:1': pomXml('c:a:1', deps('c:r:1:runtime')), 'c:r:1': pomXml('c:r:1'), 'c:b:1': pomXml('c:b:1', deps('c:x:1')), 'c:x:1': pomXml('c:x:1') };
    expect(await resolve(pomXml('p:p:1', deps('c:a:1', 'c:b:1:runtime')), poms)).toEqual(['c:a:1 compile 1', 'c:b:1 runtime 1', 'c:r:1 runtime 2', 'c:x:1 runtime 2']);
  });

  it('a winner met first under test takes compile when a compile path reaches it too (widest scope)', async () => {
    const poms = { 'c:t:1': pomXml('c:t:1', deps('c:shared:1')), 'c:m:1': pomXml('c:m:1', deps('c:shared:2')), 'c:shared:1': pomXml('c:shared:1'), 'c:shared:2': pomXml('c:shared:2') };
    expect(await resolve(pomXml('p:p:1', deps('c:t:1:test', 'c:m:1')), poms)).toEqual(['c:t:1 test 1', 'c:m:1 compile 1', 'c:shared:1 compile 2']);
  });

  it('stops at the depth bound with a notice instead of following further', async () => {
    const poms = { 'c:a:1': pomXml('c:a:1', deps('c:b:1')), 'c:b:1': pomXml('c:b:1', deps('c:c:1')), 'c:c:1': pomXml('c:c:1') };
    expect(await resolve(pomXml('p:p:1', deps('c:a:1')), poms, 2)).toEqual(['c:a:1 compile 1', 'c:b:1 compile 2']);
  });

  it('random dependency graphs (cycles, optional, test, provided): resolution ends with one version per artifact', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const edge = fc.record({ to: fc.constantFrom(...ids), version: fc.constantFrom('1', '2'), scope: fc.constantFrom('', 'runtime', 'test', 'provided'), optional: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...ids.flatMap((i) => [`${i}:1`, `${i}:2`])), fc.array(edge, { maxLength: 4 })), fc.array(edge, { minLength: 1, maxLength: 4 }), async (graph, direct) => {
        const dep = (e: { to: string; version: string; scope: string; optional: boolean }): [string, string] => [`g:${e.to}:${e.version}${e.scope === '' ? '' : `:${e.scope}`}`, e.optional ? '<optional>true</optional>' : ''];
        const poms: Record<string, string> = {};
        for (const [key, edges] of Object.entries(graph)) poms[`g:${key}`] = pomXml(`g:${key}`, edges.length === 0 ? '' : deps(...edges.map(dep)));
        const out = await resolve(pomXml('p:p:1', deps(...direct.map(dep))), poms);
        const names = out.map((line) => line.split(':').slice(0, 2).join(':'));
        expect(new Set(names).size).toBe(names.length);
      }),
      { seed: 41, numRuns: 200 },
    );
  });
});
