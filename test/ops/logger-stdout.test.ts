import { describe, expect, it } from 'vitest';
import { execFileTracked as run } from '../helpers/processes.js';

describe('the service logger on stdout', () => {
  it('writes every line, in order, though it writes asynchronously: what is left is flushed when the process exits', async () => {
    // 2,000 lines logged in one burst, then an immediate process.exit: nothing may be lost.
    const script = `
      import { createLogger } from './src/logger.ts';
      const logger = createLogger('info');
      for (let i = 0; i < 2000; i++) logger.info({ i, token: 'secret' }, 'line');
      process.exit(0);
    `;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('../..', import.meta.url), maxBuffer: 16 * 1024 * 1024 });
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { i: number; token: string; msg: string });
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(new Set(lines.map((l) => l.token))).toEqual(new Set(['[redacted]']));
  });
});
