import { describe, expect, it } from 'vitest';
import { RegistryResponseError } from '../../../../src/ecosystems/shared/http.js';
import { gemEcosystem } from '../../../../src/ecosystems/gem/analysis.js';
import { TransientAnalysisError } from '../../../../src/model/types.js';
import { buildThrough } from '../../../helpers/ecosystem.js';
import { registryFixtures } from '../../../helpers/registry-fixture.js';
import { startRubygemsRegistry, type RubygemsRegistryOptions } from '../../../helpers/rubygems-registry.js';
import { fixtureUpload } from '../../../helpers/ecosystem-fixtures.js';

const startRegistry = registryFixtures(startRubygemsRegistry);

async function clientFor(options: RubygemsRegistryOptions, timeoutMs?: number) {
  const { registry, endpoint } = await startRegistry(options, timeoutMs);
  const metadata = gemEcosystem(endpoint).metadata;
  if (metadata === null) throw new Error('no metadata client');
  return { registry, endpoint, metadata };
}

describe('RubyGems.org metadata', () => {
  it('reads licenses, info, homepage, source code and authors from the v2 version document', async () => {
    const { registry, metadata } = await clientFor({
      gems: {
        nokogiri: {
          '1.16.2': { licenses: ['MIT'], info: 'HTML, XML, SAX, and Reader parser', authors: 'Mike Dalessio, Aaron Patterson', homepage_uri: 'https://nokogiri.org', source_code_uri: 'https://github.com/sparklemotion/nokogiri' },
        },
      },
    });
    expect(await metadata.fetch('nokogiri', '1.16.2')).toEqual({
      license: 'MIT',
      description: 'HTML, XML, SAX, and Reader parser',
      homepage: 'https://nokogiri.org',
      repository: 'https://github.com/sparklemotion/nokogiri',
      author: 'Mike Dalessio, Aaron Patterson',
      deprecated: null,
      supplier: { kind: 'person', party: 'Mike Dalessio' },
    });
    expect(registry.requests).toEqual(['/api/v2/rubygems/nokogiri/versions/1.16.2.json']);
  });

  it('several licenses are alternatives (OR); URIs only in metadata are read there; yanked is deprecated', async () => {
    const { metadata } = await clientFor({
      gems: {
        json: { '2.7.1': { licenses: ['Ruby', 'BSD-2-Clause'], metadata: { homepage_uri: 'https://ruby.github.io/json', source_code_uri: 'https://github.com/ruby/json' } } },
        'left-pad': { '0.0.1': { licenses: null, yanked: true } },
      },
    });
    const json = await metadata.fetch('json', '2.7.1');
    expect([json?.license, json?.homepage, json?.repository, json?.description]).toEqual(['(Ruby OR BSD-2-Clause)', 'https://ruby.github.io/json', 'https://github.com/ruby/json', null]);
    const yanked = await metadata.fetch('left-pad', '0.0.1');
    expect([yanked?.license, yanked?.deprecated]).toEqual([null, 'yanked']);
    expect(await metadata.fetch('json', '9.9.9')).toBeNull();
    expect(await metadata.fetch('no-such-gem', '1.0.0')).toBeNull();
  });

  it('a registry answering 500 fails the coordinate with a transient error', async () => {
    const { registry, metadata } = await clientFor({ statusFor: () => 500 });
    await expect(metadata.fetch('rack', '3.0.9.1')).rejects.toBeInstanceOf(TransientAnalysisError);
    expect(registry.requests).toEqual(['/api/v2/rubygems/rack/versions/3.0.9.1.json']);
  });

  it('a registry that never answers fails at the deadline, and the lockfile facts stay', async () => {
    const { endpoint, metadata } = await clientFor({ hangFor: () => true }, 300);
    await expect(metadata.fetch('rack', '3.0.9.1')).rejects.toBeInstanceOf(TransientAnalysisError);
    const { inventory } = await buildThrough(gemEcosystem(endpoint), fixtureUpload('gem', 'rails-app'));
    expect(inventory.occurrences.find((o) => o.name === 'rack')?.integrity).toMatch(/^sha256-/);
  });

  it('a body that is not JSON is a response error; JSON of another shape is no metadata', async () => {
    const { metadata } = await clientFor({
      rawFor: (path) => (path.includes('/broken/') ? '{"name": "broken", "licenses": [' : path.includes('/odd/') ? '["not", "a", "version"]' : undefined),
    });
    await expect(metadata.fetch('broken', '1.0.0')).rejects.toBeInstanceOf(RegistryResponseError);
    expect(await metadata.fetch('odd', '1.0.0')).toBeNull();
  });

  it('appends the API path to a base URL with a trailing slash, encoding names and versions', async () => {
    const { registry, endpoint } = await startRegistry({});
    const metadata = gemEcosystem({ ...endpoint, base: `${registry.url}/` }).metadata;
    expect(await metadata?.fetch('my gem', '1.0.0.pre')).toBeNull();
    expect(registry.requests).toEqual(['/api/v2/rubygems/my%20gem/versions/1.0.0.pre.json']);
  });

  it('offline (no registry), the ecosystem has no metadata client', () => {
    expect(gemEcosystem(null).metadata).toBeNull();
  });
});
