import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, isoTimeClock, serialisedInfoWriter } from '../../src/logger.js';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('the logger clock', () => {
  it('writes the time as pino\'s isoTime does, across seconds, days and a clock set back', () => {
    let now = Date.UTC(2026, 10, 28, 23, 59, 58, 990);
    const clock = isoTimeClock(() => now);
    const steps = [0, 1, 8, 1, 90, 1, 900, 9, 1, 999, 1_000, 86_400_000, -5_000, -1, 3, 123_456];
    for (const step of steps) {
      now += step;
      expect(clock()).toBe(`,"time":"${new Date(now).toISOString()}"`);
    }
  });
});

describe('lines serialised by their writer', () => {
  const fields = { reqId: 'r-1', req: { method: 'GET', url: '/v1/x "quoted" \\ é' }, res: { statusCode: 200 }, n: 1.25, none: null };
  const serialised = `,"reqId":"r-1","req":{"method":"GET","url":${JSON.stringify(fields.req.url)}},"res":{"statusCode":200},"n":1.25,"none":null`;

  it('are byte for byte what the logger writes for the same fields, with its bindings and time', () => {
    const ordinary = capture();
    const direct = capture();
    const make = (stream: Writable) => pino({ base: { service: 'pkgscope', pid: 7 }, timestamp: () => ',"time":"T"' }, stream).child({ role: 'api' });
    make(ordinary.stream).info(fields, 'request completed');
    serialisedInfoWriter(make(direct.stream), 'request completed')(serialised);
    expect(direct.text()).toBe(ordinary.text());
    expect(JSON.parse(direct.text())).toEqual({ level: 30, time: 'T', service: 'pkgscope', pid: 7, role: 'api', ...fields, msg: 'request completed' });
  });

  it('follow the logger\'s level', () => {
    const out = capture();
    const logger = createLogger('warn', out.stream);
    const write = serialisedInfoWriter(logger, 'm');
    write(',"a":1');
    expect(out.text()).toBe('');
    logger.level = 'info';
    write(',"a":2');
    expect(JSON.parse(out.text())).toMatchObject({ level: 30, service: 'pkgscope', a: 2, msg: 'm' });
  });

  it('go the ordinary way through a logger with a mixin', () => {
    const out = capture();
    const logger = pino({ mixin: () => ({ mixed: true }) }, out.stream);
    serialisedInfoWriter(logger, 'm')(',"a":1');
    expect(JSON.parse(out.text())).toMatchObject({ a: 1, mixed: true, msg: 'm' });
  });
});
