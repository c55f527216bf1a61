import type { FixtureCrate } from '../../../helpers/crates-registry.js';

/** The crates grepper (test/fixtures/lockfiles/cargo/manifest-only) needs, as crates.io would serve them. */
export const GREPPER_CRATES: Record<string, FixtureCrate> = {
  regex: {
    versions: {
      '1.9.6': {},
      '1.10.4': {
        features: {
          default: ['std', 'perf'],
          std: ['aho-corasick?/std', 'memchr?/std', 'regex-syntax/std'],
          perf: ['perf-literal'],
          'perf-literal': ['dep:aho-corasick', 'dep:memchr'],
          logging: ['dep:log'],
        },
        dependencies: [
          { crate_id: 'aho-corasick', req: '^1.0.0', optional: true, default_features: false },
          { crate_id: 'memchr', req: '^2.6.0', optional: true, default_features: false },
          { crate_id: 'regex-syntax', req: '^0.8.2', default_features: false },
          { crate_id: 'log', req: '^0.4.14', optional: true },
          { crate_id: 'quickcheck', req: '^1.0.3', kind: 'dev' },
        ],
      },
      '1.10.5': { yanked: true },
      '2.0.0-alpha.1': {},
    },
  },
  'aho-corasick': { versions: { '1.1.3': { features: { std: ['memchr?/std'] }, dependencies: [{ crate_id: 'memchr', req: '^2.4.0', optional: true }] } } },
  memchr: { versions: { '2.6.4': {}, '2.7.1': {}, '2.7.2': { features: { default: ['std'], std: [] } } } },
  'regex-syntax': { versions: { '0.8.3': { features: { default: ['std'], std: [] } } } },
  pcre2: { versions: { '0.2.7': { dependencies: [{ crate_id: 'pcre2-sys', req: '0.2.8' }, { crate_id: 'libc', req: '0.2.146' }] } } },
  'pcre2-sys': { versions: { '0.2.9': { dependencies: [{ crate_id: 'libc', req: '^0.2.146' }, { crate_id: 'cc', req: '1.0.73', kind: 'build' }] } } },
  libc: { versions: { '0.2.153': {} } },
  cc: { versions: { '1.0.90': {} } },
  walkdir: { versions: { '2.5.0': { dependencies: [{ crate_id: 'same-file', req: '^1.0.4' }, { crate_id: 'winapi-util', req: '^0.1.1', target: 'cfg(windows)' }] } } },
  'same-file': { versions: { '1.0.6': {} } },
  'winapi-util': { versions: { '0.1.6': {} } },
  tempfile: { versions: { '3.10.1': { dependencies: [{ crate_id: 'fastrand', req: '^2.0.1' }] } } },
  fastrand: { versions: { '2.0.2': {} } },
  autocfg: { versions: { '1.2.0': {} } },
};
