import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { startJobsHarness, submitJob, type JobsHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';

const JOBS = '/v1/experimental/lockfile-jobs';

let h: JobsHarness;
let token: string;
let base: string;

beforeAll(async () => {
  h = await startJobsHarness();
  token = await h.token('eventsource');
  base = await h.listen();
  await h.startWorkers();
});
// The harness closes the workers it started.
afterAll(() => h.close());

/** A finished job: submitted, then followed to its terminal snapshot. */
async function finishedJob(): Promise<JobSnapshot> {
  const job = await submitJob(h, token);
  const stream = new SseClient(`${base}${JOBS}/${job.id}/events`, token);
  await stream.ended;
  const last = stream.snapshots().at(-1);
  if (last?.state !== 'succeeded') throw new Error(`job ended ${JSON.stringify(last)}`);
  return last;
}

describe('a standard EventSource client (the eventsource package)', () => {
  it('receives the terminal snapshot once and stops reconnecting when answered 204', async () => {
    const job = await finishedJob();
    const requests: (string | null)[] = [];
    const source = new EventSource(`${base}${JOBS}/${job.id}/events`, {
      fetch: (input, init) => {
        const headers = new Headers(init.headers);
        requests.push(headers.get('last-event-id'));
        headers.set('authorization', `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      },
    });
    const received: JobSnapshot[] = [];
    source.addEventListener('snapshot', (event) => received.push(JSON.parse(String((event as { data: unknown }).data)) as JobSnapshot));
    // The client reports an error each time its connection ends; it has stopped for good when it is CLOSED.
    await new Promise<void>((resolve) => {
      source.addEventListener('error', () => {
        if (source.readyState === EventSource.CLOSED) resolve();
      });
    });
    source.close();
    expect(received.map((s) => [s.state, s.revision])).toEqual([['succeeded', job.revision]]);
    // The first connection had no Last-Event-ID; the reconnection sent the terminal revision and was the last.
    expect(requests).toEqual([null, String(job.revision)]);
  });

  it('answers 204 only at or past the terminal revision; an older Last-Event-ID gets the snapshot', async () => {
    const job = await finishedJob();
    const ask = (lastEventId: string) =>
      fetch(`${base}${JOBS}/${job.id}/events`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': lastEventId } });
    const done = await ask(String(job.revision));
    expect(done.status).toBe(204);
    expect(done.headers.get('cache-control')).toBe('no-store');
    expect(await done.text()).toBe('');
    const behind = await ask(String(job.revision - 1));
    expect(behind.status).toBe(200);
    expect(await behind.text()).toContain(`id: ${job.revision}`);
    const garbage = await ask('not-a-revision');
    expect(garbage.status).toBe(200);
    await garbage.text();
  });
});
