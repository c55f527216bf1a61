import { describe, expect, it } from 'vitest';
import { composerEcosystem } from '../../../../src/ecosystems/composer/analysis.js';
import type { InputFile } from '../../../../src/model/types.js';
import { GROWTH_BOUND, growth } from '../../../helpers/ecosystem-fixtures.js';

/** A composer.lock of n packages, each requiring the one before and a virtual package the first provides. */
function chainComposerLock(n: number): InputFile {
  const packages = Array.from({ length: n }, (_, i) => ({
    name: `acme/p${i}`,
    version: `1.0.${i}`,
    require: { php: '>=8.1', ...(i > 0 ? { [`acme/p${i - 1}`]: '^1.0', 'psr/log-implementation': '^3.0' } : {}) },
    ...(i === 0 ? { provide: { 'psr/log-implementation': '3.0.0' } } : {}),
    'notification-url': 'https://packagist.org/downloads/',
  }));
  return { path: 'composer.lock', content: JSON.stringify({ packages, 'packages-dev': [] }) };
}

describe('composer.lock grows linearly with its input', () => {
  it('a long chain with a provided virtual package', async () => {
    expect(await growth(composerEcosystem(null), chainComposerLock, 3_000)).toBeLessThan(GROWTH_BOUND);
  });
});
