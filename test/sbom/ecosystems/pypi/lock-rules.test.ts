import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import { pypiEcosystem } from '../../../../src/ecosystems/pypi/analysis.js';
import type { InputFile } from '../../../../src/model/types.js';
import { buildThrough, components } from '../../../helpers/ecosystem.js';
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

const build = (files: InputFile[]) => buildThrough(pypiEcosystem(null), files);

describe('Python lockfile rules', () => {
  it('Pipfile.lock: a name pinned in develop at another version than in default is a second, dev component', async () => {
    const result = await build(upload('pipfile-two-pins'));
    expect(result.problems).toEqual([]);
    expect(inScope(result, 'required')).toEqual(['certifi@2024.8.30', 'idna@3.10', 'requests@2.32.3', 'urllib3@2.2.3']);
    // certifi is pinned alike in both sets: once, required. urllib3 1.26.20 is develop's own pin.
    expect(inScope(result, 'dev')).toEqual(['iniconfig@2.0.0', 'pytest@8.3.4', 'urllib3@1.26.20', 'vcrpy@4.4.0']);
    expect(result.inventory.lockfiles).toEqual([{ path: 'Pipfile.lock', kind: 'Pipfile.lock', version: '6', entries: 8 }]);
    expect(result.inventory.resolutions).toEqual([{ manifest: 'Pipfile', outcome: 'lockfile', detail: null }]);
  });

  it('requirements files joined by -r/-c are one environment: one component per name and version, of the widest scope', async () => {
    const result = await build(upload('requirements-joined'));
    const all = components(result);
    const labels = all.map((o) => `${o.name}@${o.version ?? ''}`);
    expect(labels.length).toBe(new Set(labels).size);
    expect(inScope(result, 'required')).toEqual([
      'asgiref@3.8.1',
      'django@5.1.4',
      'djangorestframework@3.15.2',
      'gunicorn@23.0.0',
      'packaging@24.2',
      'pytest@8.3.4',
      'sqlparse@0.5.2',
    ]);
    expect(inScope(result, 'dev')).toEqual(['django-debug-toolbar@4.4.6', 'iniconfig@2.0.0', 'pluggy@1.5.0']);
    // Attributed to the first file, in path order, that gives the widest scope.
    const lockfileOf = (name: string): string | undefined => all.find((o) => o.name === name)?.lockfile;
    expect(lockfileOf('django')).toBe('requirements/base.txt');
    expect(lockfileOf('packaging')).toBe('requirements/production.txt');
    expect(lockfileOf('pytest')).toBe('services/api/requirements.txt');
    expect(lockfileOf('pluggy')).toBe('requirements/dev.txt');
    // `django>=5.1` is met by the environment's pin: no declaration, nothing partial.
    expect(result.inventory.declarations).toEqual([]);
    expect(result.inventory.lockfiles.map((l) => `${l.path}:${l.entries}`)).toEqual([
      'requirements/base.txt:3',
      'requirements/dev.txt:8',
      'requirements/production.txt:2',
      'services/api/requirements.txt:2',
    ]);
  });

  it('keeps requirements files nothing joins apart', async () => {
    const result = await build([
      { path: 'a/requirements.txt', content: 'six==1.16.0\n' },
      { path: 'b/requirements-dev.txt', content: 'six==1.16.0\n' },
    ]);
    expect(components(result).map((o) => `${o.lockfile}:${o.dev ? 'dev' : 'required'}`)).toEqual(['a/requirements.txt:required', 'b/requirements-dev.txt:dev']);
  });

  it('uv.lock: extras apply along the edge that asks for them, at the scope of that path', async () => {
    const result = await build(upload('uv-extras'));
    expect(result.problems).toEqual([]);
    // pydantic[email] from the project's dependencies: email-validator ships.
    expect(inScope(result, 'required')).toEqual([
      'annotated-types@0.7.0',
      'certifi@2024.8.30',
      'charset-normalizer@3.4.0',
      'dnspython@2.7.0',
      'email-validator@2.2.0',
      'idna@3.10',
      'pydantic@2.10.3',
      'requests@2.32.3',
      'urllib3@2.2.3',
    ]);
    // httpx[http2] from the project's optional group: h2 and its dependencies are optional too.
    expect(inScope(result, 'optional')).toEqual([
      'anyio@4.7.0',
      'h11@0.14.0',
      'h2@4.1.0',
      'hpack@4.0.0',
      'httpcore@1.0.7',
      'httpx@0.28.1',
      'hyperframe@6.0.1',
      'sniffio@1.3.1',
    ]);
    // requests[socks], asked only by httpie of the test group: pysocks is dev though requests ships;
    // uvicorn[standard] from the group itself switches httptools on; nobody asks httpx[brotli] or chardet.
    expect(inScope(result, 'dev')).toEqual([
      'brotli@1.1.0',
      'chardet@5.2.0',
      'click@8.1.7',
      'colorama@0.4.6',
      'httpie@3.2.4',
      'httptools@0.6.4',
      'iniconfig@2.0.0',
      'pluggy@1.5.0',
      'pygments@2.18.0',
      'pysocks@1.7.1',
      'pytest@8.3.4',
      'uvicorn@0.32.1',
    ]);
    expect(result.inventory.resolutions).toEqual([{ manifest: 'pyproject.toml', outcome: 'lockfile', detail: null }]);
  });

  it('a pyproject.toml of tool settings alone is no manifest: nothing unresolved, the document not partial', async () => {
    const files = upload('tool-settings');
    const result = await build(files);
    expect(result.problems).toEqual([]);
    expect(result.inventory.resolutions).toEqual([]);
    expect(result.inventory.associations).toEqual([]);
    expect(inScope(result, 'required')).toEqual(['click@8.1.7']);
    const bom = JSON.parse((await analyze(files, 'cyclonedx')).document) as { properties: { name: string; value: string }[] };
    expect(bom.properties.find((p) => p.name === 'service:completeness')?.value).toBe('recorded_lockfile_inventory');
  });
});
