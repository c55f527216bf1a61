import { describe, expect, it } from 'vitest';
import { OSV_ECOSYSTEMS } from '../../src/advisories/ecosystems.js';
import { archiveUrl } from '../../src/advisories/sync.js';
import { ConfigError, DEFAULT_ADVISORY_DB_URL, loadConfig } from '../../src/config.js';

describe('advisory settings', () => {
  it('default to OSV’s bulk download, every ecosystem, hourly', () => {
    expect(loadConfig({}).advisories).toEqual({ dbUrl: DEFAULT_ADVISORY_DB_URL, ecosystems: OSV_ECOSYSTEMS, syncIntervalMs: 3_600_000 });
  });

  it('ADVISORY_DB_URL set empty or off disables the sync', () => {
    expect(loadConfig({ ADVISORY_DB_URL: '' }).advisories.dbUrl).toBeNull();
    expect(loadConfig({ ADVISORY_DB_URL: 'OFF' }).advisories.dbUrl).toBeNull();
    expect(loadConfig({ ADVISORY_DB_URL: 'http://mirror.internal/osv/' }).advisories.dbUrl).toBe('http://mirror.internal/osv');
  });

  it('ADVISORY_ECOSYSTEMS narrows the list in OSV’s spelling; an unknown name is kept for its sync to fail visibly', () => {
    expect(loadConfig({ ADVISORY_ECOSYSTEMS: 'pypi, GO,crates.io,pypi' }).advisories.ecosystems).toEqual(['PyPI', 'Go', 'crates.io']);
    expect(loadConfig({ ADVISORY_ECOSYSTEMS: 'Foo' }).advisories.ecosystems).toEqual(['Foo']);
  });

  it('bad values are listed with the others at start-up', () => {
    expect(() => loadConfig({ ADVISORY_DB_URL: 'ftp://x', ADVISORY_SYNC_INTERVAL_MS: '5', ADVISORY_ECOSYSTEMS: 'a;b' })).toThrow(ConfigError);
    try {
      loadConfig({ ADVISORY_DB_URL: 'ftp://x', ADVISORY_SYNC_INTERVAL_MS: '5', ADVISORY_ECOSYSTEMS: 'a;b' });
    } catch (error) {
      expect((error as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(['ADVISORY_DB_URL', 'ADVISORY_ECOSYSTEMS', 'ADVISORY_SYNC_INTERVAL_MS']);
    }
  });

  it('archive URLs follow the bulk layout, the ecosystem a path segment', () => {
    expect(archiveUrl('https://osv.example/', 'crates.io')).toBe('https://osv.example/crates.io/all.zip');
    expect(archiveUrl('https://osv.example/base', 'Red Hat')).toBe('https://osv.example/base/Red%20Hat/all.zip');
  });
});
