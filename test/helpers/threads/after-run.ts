import { BroadcastChannel, type MessagePort } from 'node:worker_threads';

/**
 * A pool worker (test/threads): each run schedules work on the thread's event loop for after it
 * returns, which says so on the run's broadcast channel when it gets to run.
 */
export default function afterRun(task: { readonly channel: string; readonly port: MessagePort }): string {
  setImmediate(() => {
    const channel = new BroadcastChannel(task.channel);
    channel.postMessage('ran after the run');
    channel.close();
  });
  task.port.close();
  return 'returned';
}
