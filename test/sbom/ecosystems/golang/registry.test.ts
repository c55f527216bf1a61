import { afterEach, describe, expect, it } from 'vitest';
import { golangEcosystem } from '../../../../src/ecosystems/golang/analysis.js';
import { escapeModulePart } from '../../../../src/ecosystems/golang/registry.js';
import { registryHttp } from '../../../../src/ecosystems/shared/http.js';
import { TransientAnalysisError } from '../../../../src/model/types.js';
import { startGoProxy, type GoProxyOptions } from '../../../helpers/go-proxy.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function clientFor(options: GoProxyOptions, http = registryHttp({ retries: 0 })) {
  const proxy = await startGoProxy(options);
  open.push(http, proxy);
  const metadata = golangEcosystem({ base: `${proxy.url}/`, http }).metadata;
  if (metadata === null) throw new Error('a Go ecosystem with a registry has metadata');
  return { proxy, metadata };
}

const TOML = {
  versions: {
    'v1.3.2': { time: '2023-06-08T06:10:00Z' },
    'v1.4.0': { time: '2024-06-05T11:09:14Z', origin: { VCS: 'git', URL: 'https://github.com/BurntSushi/toml', Ref: 'refs/tags/v1.4.0', Hash: '8f7a8d7c3b1cd5e61b3bd3e1c1a1d28f4e4d5a79' } },
  },
};

describe('Go module proxy metadata', () => {
  it('reads .info in the proxy’s case-encoding and takes the repository from Origin; licenses stay unknown', async () => {
    const { proxy, metadata } = await clientFor({ modules: { 'github.com/BurntSushi/toml': TOML } });
    const meta = await metadata.fetch('github.com/BurntSushi/toml', 'v1.4.0');
    expect(meta).toEqual({ license: null, description: null, homepage: null, repository: 'https://github.com/BurntSushi/toml', author: null, deprecated: null, supplier: { kind: 'organization', party: 'github.com/BurntSushi' } });
    // .info and @latest go out together; the latest version's go.mod follows.
    expect(proxy.requests.slice(0, 2).sort()).toEqual(['/github.com/!burnt!sushi/toml/@latest', '/github.com/!burnt!sushi/toml/@v/v1.4.0.info']);
    expect(proxy.requests[2]).toBe('/github.com/!burnt!sushi/toml/@v/v1.4.0.mod');
    // A version without an Origin (an older proxy) has no repository: never guessed from the path.
    expect((await metadata.fetch('github.com/BurntSushi/toml', 'v1.3.2'))?.repository).toBeNull();
  });

  it('says a module is deprecated, or a version retracted, as the latest go.mod says', async () => {
    const { metadata } = await clientFor({
      modules: {
        'github.com/golang/mock': {
          versions: { 'v1.6.0': { time: '2021-06-11T19:26:53Z', mod: '// Deprecated: use go.uber.org/mock instead.\nmodule github.com/golang/mock\n\ngo 1.11\n' } },
        },
        'example.com/lib': {
          versions: {
            'v1.0.1': { time: '2024-01-01T00:00:00Z' },
            'v1.0.2': { time: '2024-02-01T00:00:00Z', mod: 'module example.com/lib\n\ngo 1.21\n\nretract [v1.0.0, v1.0.1] // Data race in Pool.\n' },
          },
        },
      },
    });
    expect((await metadata.fetch('github.com/golang/mock', 'v1.6.0'))?.deprecated).toBe('use go.uber.org/mock instead.');
    expect((await metadata.fetch('example.com/lib', 'v1.0.1'))?.deprecated).toBe('retracted: Data race in Pool.');
    expect((await metadata.fetch('example.com/lib', 'v1.0.2'))?.deprecated).toBeNull();
  });

  it('maps a module or version the proxy does not have (404, 410) to null', async () => {
    const { metadata } = await clientFor({ modules: { 'example.com/gone': { versions: {}, status: 410 }, 'github.com/BurntSushi/toml': TOML } });
    expect(await metadata.fetch('example.com/gone', 'v1.0.0')).toBeNull();
    expect(await metadata.fetch('example.com/never', 'v1.0.0')).toBeNull();
    expect(await metadata.fetch('github.com/BurntSushi/toml', 'v9.9.9')).toBeNull();
  });

  it('fails with a transient error on a proxy answering 500', async () => {
    const { proxy, metadata } = await clientFor({ status: 500 });
    await expect(metadata.fetch('github.com/BurntSushi/toml', 'v1.4.0')).rejects.toBeInstanceOf(TransientAnalysisError);
    // Once: no retry here (retries 0), and no .mod request after a failure.
    expect(proxy.requests.filter((r) => r.endsWith('.info'))).toEqual(['/github.com/!burnt!sushi/toml/@v/v1.4.0.info']);
    expect(proxy.requests.some((r) => r.endsWith('.mod'))).toBe(false);
  });

  it('fails fast on a proxy that does not answer: the HTTP client’s deadline ends the request', async () => {
    const { proxy, metadata } = await clientFor({ hang: true }, registryHttp({ timeoutMs: 300, retries: 0 }));
    const failure = metadata.fetch('github.com/BurntSushi/toml', 'v1.4.0');
    await expect(failure).rejects.toBeInstanceOf(TransientAnalysisError);
    await expect(failure).rejects.toThrow('registry did not answer in time');
    // The request reached the proxy: it was the deadline, not a refused connection, that ended it.
    expect(proxy.requests).toContain('/github.com/!burnt!sushi/toml/@v/v1.4.0.info');
  });

  it('escapes upper case in paths and versions as the go command does', () => {
    expect(escapeModulePart('github.com/Azure/azure-sdk-for-go')).toBe('github.com/!azure/azure-sdk-for-go');
    expect(escapeModulePart('v1.0.0-RC1')).toBe('v1.0.0-!r!c1');
  });

  it('is absent offline', () => {
    expect(golangEcosystem(null).metadata).toBeNull();
  });
});
