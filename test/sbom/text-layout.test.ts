import { describe, expect, it } from 'vitest';
import { table, TEXT_WIDTH, wrap } from '../../src/sbom/render/text-layout.js';

describe('text layout within 120 columns', () => {
  it('wraps words, keeps the text’s own spacing, cuts only words longer than a line', () => {
    expect(wrap('lockfile:         a.lock (npm 3, 2 entries)')).toEqual(['lockfile:         a.lock (npm 3, 2 entries)']);
    const long = `  ${'word '.repeat(60)}${'x'.repeat(300)}`;
    const lines = wrap(long, TEXT_WIDTH, '  ');
    expect(lines.every((l) => l.length <= TEXT_WIDTH)).toBe(true);
    expect(lines[0]?.startsWith('  word')).toBe(true);
    expect(lines.slice(1).every((l) => l.startsWith('  '))).toBe(true);
    expect(lines.join(' ').replace(/\s+/g, '')).toBe(long.replace(/\s+/g, ''));
  });

  it('keeps every table row within the width, continuing long cells below', () => {
    const path = `node_modules/${'deep/node_modules/'.repeat(12)}leaf`;
    const rows = [
      ['@a-very-long-scope-name/with-an-even-longer-package-name', '1.0.0-beta.123+build.456789', 'Apache-2.0 OR MIT OR BSD-3-Clause', 'optional', path],
      ['lodash', '4.17.21', 'MIT', 'required', 'node_modules/lodash'],
    ];
    const lines = table(['NAME', 'VERSION', 'LICENSE', 'SCOPE', 'PATH'], rows, [40, 20, 24, 8]);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(TEXT_WIDTH);
    expect(lines.join('\n')).toContain('lodash');
    // Nothing lost: the long path's pieces, in order, make the path.
    const pathColumn = lines.map((l) => l.slice(lines[0]!.indexOf('PATH'))).slice(1, -1).join('');
    expect(pathColumn).toBe(path);
  });
});
