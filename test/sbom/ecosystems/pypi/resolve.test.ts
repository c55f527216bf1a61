import { afterEach, describe, expect, it } from 'vitest';
import { registryHttp } from '../../../../src/ecosystems/shared/http.js';
import { pypiEcosystem } from '../../../../src/ecosystems/pypi/analysis.js';
import { DEFAULT_ENVIRONMENT, evaluateMarker } from '../../../../src/ecosystems/pypi/markers.js';
import { TransientAnalysisError, type InputFile } from '../../../../src/model/types.js';
import { startPypiRegistry, type PypiRegistryOptions } from '../../../helpers/pypi-registry.js';

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function ecosystemWith(options: PypiRegistryOptions, timeoutMs = 5_000) {
  const registry = await startPypiRegistry(options);
  const http = registryHttp({ timeoutMs, retries: 0 });
  open.push(() => http.close(), () => registry.close());
  return { registry, ecosystem: pypiEcosystem({ base: registry.url, http }) };
}

const PROJECTS: PypiRegistryOptions['projects'] = {
  requests: {
    '2.31.0': { requiresDist: ['idna<4,>=2.5', 'PySocks!=1.5.7,>=1.5.6; extra == "socks"', "chardet<6,>=3.0.2; extra == 'use-chardet'"], licenseExpression: 'Apache-2.0' },
    '2.32.0': { yanked: true },
    '3.0.0rc1': {},
  },
  idna: { '3.6': {}, '3.7': { requiresDist: ["colorama; sys_platform == 'win32'"] } },
  PySocks: { '1.7.1': { classifiers: ['License :: OSI Approved :: BSD License'] } },
  chardet: { '5.2.0': {} },
  colorama: { '0.4.6': {} },
  pytest: { '8.3.4': { requiresDist: ['iniconfig', 'colorama; sys_platform == "win32"'] } },
  iniconfig: { '2.0.0': {} },
};

const PYPROJECT: InputFile = {
  path: 'pyproject.toml',
  content: '[project]\nname = "client"\nversion = "1.0"\ndependencies = ["requests[socks]>=2.30", "nowhere-to-be-found>=1"]\n\n[dependency-groups]\ntest = ["pytest"]\n',
};

async function build(ecosystem: ReturnType<typeof pypiEcosystem>, files: InputFile[]) {
  return ecosystem.build(
    files.map((f) => ({ ...f, ...(ecosystem.claim(f) ?? { kind: 'none', role: 'auxiliary' as const, by: 'name' as const }) })),
    { onManifestDone: () => undefined },
  );
}

describe('Python manifests resolved against PyPI', () => {
  it('takes the highest allowed release (not yanked, not a pre-release), follows markers and requested extras', async () => {
    const { ecosystem } = await ecosystemWith({ projects: PROJECTS });
    const { inventory, problems } = await build(ecosystem, [PYPROJECT]);
    const scoped = inventory.occurrences
      .filter((o) => !inventory.roots.includes(o.ref))
      .map((o) => `${o.name}@${o.version ?? ''}:${o.dev ? 'dev' : o.optional ? 'optional' : 'required'}`)
      .sort();
    // requests 2.32.0 is yanked, 3.0.0rc1 a pre-release; the socks extra brings PySocks, nobody asks
    // for use-chardet; colorama is for Windows only (the default environment is Linux).
    expect(scoped).toEqual(['PySocks@1.7.1:required', 'idna@3.7:required', 'iniconfig@2.0.0:dev', 'pytest@8.3.4:dev', 'requests@2.31.0:required']);
    expect(inventory.declarations).toEqual([{ manifest: 'pyproject.toml', name: 'nowhere-to-be-found', range: '>=1', kind: 'dependencies', ecosystem: 'pypi' }]);
    expect(problems).toMatchObject([{ path: 'pyproject.toml', reason: 'unresolvable', package: 'nowhere-to-be-found' }]);
    expect(inventory.resolutions).toMatchObject([{ manifest: 'pyproject.toml', outcome: 'resolved' }]);
  });

  it('is told of a failing or silent registry, so the job is retried rather than given a partial inventory', async () => {
    const failing = await ecosystemWith({ status: 500 });
    await expect(build(failing.ecosystem, [PYPROJECT])).rejects.toBeInstanceOf(TransientAnalysisError);
    const silent = await ecosystemWith({ hang: true }, 300);
    await expect(build(silent.ecosystem, [PYPROJECT])).rejects.toBeInstanceOf(TransientAnalysisError);
    expect(silent.registry.requests.length).toBeGreaterThan(0);
  });

  it('reads release metadata: license expression, summary, source repository', async () => {
    const { ecosystem } = await ecosystemWith({ projects: PROJECTS });
    expect(await ecosystem.metadata?.fetch('Requests', '2.31.0')).toMatchObject({
      license: 'Apache-2.0',
      description: 'requests package',
      repository: 'https://git.example.test/requests',
    });
    expect(await ecosystem.metadata?.fetch('requests', '9.9.9')).toBeNull();
  });
});

describe('PEP 508 markers', () => {
  it('evaluates versions, platforms, extras, and/or and parentheses for the default environment', () => {
    const none = new Set<string>();
    expect(evaluateMarker('python_version < "3.11"', DEFAULT_ENVIRONMENT, none)).toBe(false);
    expect(evaluateMarker("python_full_version >= '3.12'", DEFAULT_ENVIRONMENT, none)).toBe(true);
    expect(evaluateMarker('sys_platform == "win32" or (platform_system == "Linux" and platform_machine == "x86_64")', DEFAULT_ENVIRONMENT, none)).toBe(true);
    expect(evaluateMarker('extra == "socks"', DEFAULT_ENVIRONMENT, none)).toBe(false);
    expect(evaluateMarker('extra == "socks"', DEFAULT_ENVIRONMENT, new Set(['socks']))).toBe(true);
    expect(evaluateMarker('"linux" in sys_platform', DEFAULT_ENVIRONMENT, none)).toBe(true);
    expect(evaluateMarker('python_version < "3.13"', { ...DEFAULT_ENVIRONMENT, python_version: '3.13' }, none)).toBe(false);
  });
});
