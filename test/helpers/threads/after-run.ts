import type { MessagePort } from 'node:worker_threads';

/**
 * A pool worker (test/threads): each run schedules work on the thread's event loop for after it
 * returns, which raises the flag of the run's shared buffer when it gets to run.
 */
export default function afterRun(task: { readonly flag: SharedArrayBuffer; readonly port: MessagePort }): string {
  const flag = new Int32Array(task.flag);
  setImmediate(() => {
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
  task.port.close();
  return 'returned';
}
