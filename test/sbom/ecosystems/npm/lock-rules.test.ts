import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import type { StandaloneProject, StandaloneResolver } from '../../../../src/ecosystems/npm/build.js';
import { npmEcosystem } from '../../../../src/ecosystems/npm/analysis.js';
import type { InputFile } from '../../../../src/model/types.js';
import { buildThrough, components, rootsOf } from '../../../helpers/ecosystem.js';
import { inScope } from '../../../helpers/ecosystem-fixtures.js';

/** The rules of the formats that real lockfiles exercise, each on a fixture shaped like what the tool writes. */

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

function upload(set: string): InputFile[] {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
  const root = join(FIXTURES, set);
  return walk(root)
    .sort()
    .map((p) => ({ path: relative(root, p), content: readFileSync(p, 'utf8') }));
}

/** A resolver that records which manifests it was asked to resolve and resolves none. */
function recordingResolver(): { resolver: StandaloneResolver; asked: string[] } {
  const asked: string[] = [];
  const resolver: StandaloneResolver = (project: StandaloneProject) => {
    asked.push(project.manifest.path);
    return Promise.resolve({ failed: { manifest: project.manifest.path, outcome: 'resolution_failed', detail: 'not resolved here' } });
  };
  return { resolver, asked };
}

const offline = () => npmEcosystem({ resolver: null, metadata: null });
const completeness = (document: string): string | undefined =>
  (JSON.parse(document) as { properties: { name: string; value: string }[] }).properties.find((p) => p.name === 'service:completeness')?.value;

describe('pnpm: one entry reached by its real name and by an alias', () => {
  for (const set of ['pnpm9-alias', 'pnpm6-alias']) {
    it(`is one package under its real name, the real-name requirement resolved (${set})`, async () => {
      const result = await buildThrough(offline(), upload(set));
      const all = components(result);
      const named = (name: string, version: string) => all.find((o) => o.name === name && o.version === version);
      // string-width@4.2.3 is required as string-width and as string-width-cjs (npm:string-width@^4.2.0).
      expect(named('string-width', '4.2.3')?.alias).toBeNull();
      expect(named('strip-ansi', '6.0.1')?.alias).toBeNull();
      // wrap-ansi@7.0.0 is reached only as wrap-ansi-cjs: it is installed under that alias.
      expect(named('wrap-ansi', '7.0.0')?.alias).toBe('wrap-ansi-cjs');
      expect(all.filter((o) => o.name === 'string-width').map((o) => o.version).sort()).toEqual(['4.2.3', '5.1.2']);
      expect(result.inventory.declarations).toEqual([]);
      expect(result.inventory.notices.filter((n) => n.includes('does not contain'))).toEqual([]);
      expect(inScope(result, 'dev')).toEqual(['typescript@5.6.3']);
      expect(completeness((await analyze(upload(set), 'cyclonedx')).document)).toBe('recorded_lockfile_inventory');
    });
  }
});

describe('file: and link: to a folder outside the lockfile’s', () => {
  it('npm file:../deps/x is a dependency named by its package.json, its devDependencies not the project’s', async () => {
    const result = await buildThrough(offline(), upload('npm-file-outside'));
    expect(rootsOf(result).map((o) => o.name)).toEqual(['app']);
    const linked = components(result).find((o) => o.installPath === '../deps/shared-utils');
    expect(linked).toMatchObject({ name: 'shared-utils', version: '1.2.0', source: 'file', dev: false });
    const app = rootsOf(result)[0];
    expect(app?.dependencies.some((e) => e.ref === linked?.ref && e.kind === 'prod')).toBe(true);
    // Its own dependency on ms resolves to the hoisted entry.
    expect(linked?.dependencies.map((e) => e.ref)).toEqual([components(result).find((o) => o.name === 'ms')?.ref]);
    expect(result.inventory.declarations).toEqual([]);
    expect(inScope(result, 'required')).toEqual(['ms@2.1.3', 'shared-utils@1.2.0']);
    expect(result.inventory.associations).toContainEqual({ manifest: 'deps/shared-utils/package.json', lockfile: 'app/package-lock.json', role: 'workspace' });
    expect(result.inventory.resolutions.map((r) => `${r.manifest}:${r.outcome}`).sort()).toEqual(['app/package.json:lockfile', 'deps/shared-utils/package.json:lockfile']);
  });

  it('names the linked folder after its folder when its package.json is not uploaded', async () => {
    const files = upload('npm-file-outside').filter((f) => f.path !== 'deps/shared-utils/package.json');
    const lock = JSON.parse(files.find((f) => f.path.endsWith('package-lock.json'))?.content ?? '{}') as { packages: Record<string, Record<string, unknown>> };
    expect(lock.packages['../deps/shared-utils']?.['name']).toBeUndefined();
    const result = await buildThrough(offline(), files);
    expect(components(result).find((o) => o.installPath === '../deps/shared-utils')?.name).toBe('shared-utils');
    expect(rootsOf(result).map((o) => o.name)).toEqual(['app']);
  });

  it('pnpm link:../lib is a dependency named by its package.json (or folder), scoped by the importer’s section', async () => {
    const result = await buildThrough(offline(), upload('pnpm-link-outside'));
    expect(rootsOf(result).map((o) => o.name)).toEqual(['web']);
    const uiKit = components(result).find((o) => o.installPath === '../lib/ui-kit');
    expect(uiKit).toMatchObject({ name: '@acme/ui-kit', version: '0.9.0', source: 'link', dev: false });
    expect(components(result).find((o) => o.installPath === '../tools/eslint-config')).toMatchObject({ name: 'eslint-config', version: null, source: 'link', dev: true });
    expect(inScope(result, 'required')).toEqual(['@acme/ui-kit@0.9.0', 'js-tokens@4.0.0', 'loose-envify@1.4.0', 'react@18.3.1']);
    // Neither the links nor ui-kit's devDependencies (storybook, vite) are unresolved declarations.
    expect(result.inventory.declarations).toEqual([]);
    expect(result.inventory.resolutions.map((r) => `${r.manifest}:${r.outcome}`).sort()).toEqual(['lib/ui-kit/package.json:lockfile', 'web/package.json:lockfile']);
  });

  it('gives valid, complete documents for both (the analysis validates what it renders)', async () => {
    for (const set of ['npm-file-outside', 'pnpm-link-outside']) {
      expect(completeness((await analyze(upload(set), 'cyclonedx')).document), set).toBe('recorded_lockfile_inventory');
      const spdx = JSON.parse((await analyze(upload(set), 'spdx')).document) as { packages: { name: string }[] };
      expect(spdx.packages.map((p) => p.name), set).toContain(set === 'npm-file-outside' ? 'shared-utils' : '@acme/ui-kit');
    }
  });
});

describe('manifests no lockfile covers', () => {
  it('below a lockfile’s folder and in no workspace of it: named in a notice, never resolved', async () => {
    const { resolver, asked } = recordingResolver();
    const result = await buildThrough(npmEcosystem({ resolver, metadata: null }), upload('templates-below-lock'));
    expect(asked).toEqual([]);
    expect(result.inventory.notices).toContainEqual(
      "3 package.json file(s) below a lockfile's folder that no lockfile or workspace covers were not resolved (templates or type-only manifests): packages/core/src/types/package.json, templates/react-app/package.json, templates/vue-app/package.json",
    );
    expect(result.inventory.declarations).toEqual([]);
    expect(result.inventory.resolutions.map((r) => `${r.manifest}:${r.outcome}`).sort()).toEqual(['package.json:lockfile', 'packages/core/package.json:lockfile']);
    expect(inScope(result, 'required')).toEqual(['kleur@4.1.5']);
  });

  it('a lone package.json, or one beside lockfiles of sibling folders, is still resolved', async () => {
    const { resolver, asked } = recordingResolver();
    const lock = upload('templates-below-lock').filter((f) => f.path === 'package.json' || f.path === 'package-lock.json');
    await buildThrough(npmEcosystem({ resolver, metadata: null }), [
      ...lock.map((f) => ({ ...f, path: `cli/${f.path}` })),
      { path: 'site/package.json', content: JSON.stringify({ name: 'site', dependencies: { vue: '^3.5.13' } }) },
    ]);
    await buildThrough(npmEcosystem({ resolver, metadata: null }), [{ path: 'package.json', content: JSON.stringify({ name: 'lone', dependencies: { vue: '^3.5.13' } }) }]);
    expect(asked).toEqual(['site/package.json', 'package.json']);
  });
});
