import { describe, expect, it } from 'vitest';
import { gemEcosystem } from '../../../../src/ecosystems/gem/analysis.js';
import type { InputFile } from '../../../../src/model/types.js';
import { GROWTH_BOUND, growth } from '../../../helpers/ecosystem-fixtures.js';

/** A Gemfile.lock of n specs, each depending on the one before, with three platform builds of every tenth. */
function chainGemfileLock(n: number): InputFile {
  const lines = ['GEM', '  remote: https://rubygems.org/', '  specs:'];
  for (let i = 0; i < n; i++) {
    const builds = i % 10 === 0 ? ['', '-x86_64-linux', '-arm64-darwin'] : [''];
    for (const b of builds) {
      lines.push(`    g${i} (1.0.${i}${b})`);
      if (i > 0) lines.push(`      g${i - 1} (>= 1.0)`);
    }
  }
  lines.push('', 'PLATFORMS', '  ruby', '', 'DEPENDENCIES', `  g${n - 1}`, '', 'BUNDLED WITH', '   2.5.6', '');
  return { path: 'Gemfile.lock', content: lines.join('\n') };
}

describe('Gemfile.lock grows linearly with its input', () => {
  it('a long chain with platform builds', async () => {
    expect(await growth(gemEcosystem(null), chainGemfileLock, 3_000)).toBeLessThan(GROWTH_BOUND);
  });
});
