import { describe, expect, it } from 'vitest';
import { RegistryResponseError } from '../../../../src/ecosystems/shared/http.js';
import { composerEcosystem } from '../../../../src/ecosystems/composer/analysis.js';
import { expandMinified } from '../../../../src/ecosystems/composer/registry.js';
import { TransientAnalysisError } from '../../../../src/model/types.js';
import { buildThrough } from '../../../helpers/ecosystem.js';
import { startPackagistRegistry, type PackagistRegistryOptions } from '../../../helpers/packagist-registry.js';
import { registryFixtures } from '../../../helpers/registry-fixture.js';
import { fixtureUpload } from '../../../helpers/ecosystem-fixtures.js';

const startRegistry = registryFixtures(startPackagistRegistry);

async function clientFor(options: PackagistRegistryOptions, timeoutMs?: number) {
  const { registry, endpoint } = await startRegistry(options, timeoutMs);
  const metadata = composerEcosystem(endpoint).metadata;
  if (metadata === null) throw new Error('no metadata client');
  return { registry, endpoint, metadata };
}

const MONOLOG: PackagistRegistryOptions['packages'] = {
  'monolog/monolog': {
    tagged: [
      { version: '3.6.0', description: 'Sends your logs to files, sockets, inboxes, databases and various web services', homepage: 'https://github.com/Seldaek/monolog', license: ['MIT'], authors: [{ name: 'Jordi Boggiano', email: 'j.boggiano@seld.be' }] },
      { version: '3.5.0', description: 'Sends your logs to files, sockets, inboxes, databases and various web services', homepage: 'https://github.com/Seldaek/monolog', license: ['MIT'], authors: [{ name: 'Jordi Boggiano', email: 'j.boggiano@seld.be' }] },
      // An old version without a homepage: the minified list says "__unset".
      { version: '1.0.0', description: 'Logging for PHP 5.3', license: ['MIT', 'BSD-3-Clause'], authors: [{ name: 'Jordi Boggiano' }], abandoned: 'monolog/monolog-v3' },
    ],
    dev: [{ version: 'dev-main', description: 'Logging, unreleased', license: ['MIT'], source: { type: 'git', url: 'https://github.com/Seldaek/monolog.git', reference: 'f'.repeat(40) } }],
  },
};

describe('Packagist metadata', () => {
  it('reads a version out of the minified p2 list (later versions state only what changed)', async () => {
    const { registry, metadata } = await clientFor({ packages: MONOLOG });
    expect(await metadata.fetch('monolog/monolog', '3.5.0')).toEqual({
      license: 'MIT',
      description: 'Sends your logs to files, sockets, inboxes, databases and various web services',
      homepage: 'https://github.com/Seldaek/monolog',
      repository: 'https://github.com/monolog/monolog.git',
      author: 'Jordi Boggiano <j.boggiano@seld.be>',
      deprecated: null,
      supplier: { kind: 'organization', party: 'monolog' },
    });
    const old = await metadata.fetch('monolog/monolog', '1.0.0');
    expect([old?.license, old?.homepage, old?.description, old?.author, old?.deprecated]).toEqual(['(MIT OR BSD-3-Clause)', null, 'Logging for PHP 5.3', 'Jordi Boggiano', 'abandoned, use monolog/monolog-v3']);
    expect(registry.requests).toEqual(['/p2/monolog/monolog.json', '/p2/monolog/monolog.json']);
  });

  it('a branch version is read from the ~dev file; names are asked for lowercased; unknown is null', async () => {
    const { registry, metadata } = await clientFor({ packages: MONOLOG });
    const dev = await metadata.fetch('Monolog/Monolog', 'dev-main');
    expect([dev?.description, dev?.repository]).toEqual(['Logging, unreleased', 'https://github.com/Seldaek/monolog.git']);
    expect(await metadata.fetch('monolog/monolog', '9.9.9')).toBeNull();
    expect(await metadata.fetch('nobody/nothing', '1.0.0')).toBeNull();
    expect(registry.requests).toEqual(['/p2/monolog/monolog~dev.json', '/p2/monolog/monolog.json', '/p2/nobody/nothing.json']);
  });

  it('reads an unminified list too (a Composer repository need not minify)', async () => {
    const { metadata } = await clientFor({ packages: MONOLOG, unminified: true });
    expect((await metadata.fetch('monolog/monolog', '1.0.0'))?.homepage).toBeNull();
    expect((await metadata.fetch('monolog/monolog', '3.6.0'))?.homepage).toBe('https://github.com/Seldaek/monolog');
  });

  it('expands as Composer does: keys carry over, "__unset" removes one', () => {
    expect(expandMinified([{ version: '2', a: 1, b: 2 }, { version: '1', b: '__unset', c: 3 }, { version: '0' }])).toEqual([
      { version: '2', a: 1, b: 2 },
      { version: '1', a: 1, c: 3 },
      { version: '0', a: 1, c: 3 },
    ]);
  });

  it('a registry answering 500 fails the coordinate with a transient error', async () => {
    const { metadata } = await clientFor({ statusFor: () => 500 });
    await expect(metadata.fetch('monolog/monolog', '3.5.0')).rejects.toBeInstanceOf(TransientAnalysisError);
  });

  it('a registry that never answers fails at the deadline, and the lock’s facts stay', async () => {
    const { endpoint, metadata } = await clientFor({ hangFor: () => true }, 300);
    await expect(metadata.fetch('monolog/monolog', '3.5.0')).rejects.toBeInstanceOf(TransientAnalysisError);
    const { inventory } = await buildThrough(composerEcosystem(endpoint), fixtureUpload('composer', 'shop'));
    expect(inventory.occurrences.find((o) => o.name === 'monolog/monolog')?.license).toBe('MIT');
  });

  it('a body that is not JSON is a response error; JSON of another shape is no metadata', async () => {
    const { metadata } = await clientFor({
      rawFor: (path) => (path.startsWith('/p2/broken/') ? '{"packages": {"broken/pkg": [' : path.startsWith('/p2/odd/') ? '{"packages": {"odd/pkg": {"3.5.0": "x"}}}' : undefined),
    });
    await expect(metadata.fetch('broken/pkg', '1.0.0')).rejects.toBeInstanceOf(RegistryResponseError);
    expect(await metadata.fetch('odd/pkg', '3.5.0')).toBeNull();
  });

  it('offline (no registry), the ecosystem has no metadata client', () => {
    expect(composerEcosystem(null).metadata).toBeNull();
  });
});
