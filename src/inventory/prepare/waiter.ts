import type { EventHub } from '../../jobs/events.js';

/** The channel announcing state changes of one inventory. */
export function inventoryChannel(prefix: string, inventoryId: string): string {
  return `${prefix}:inventory-events:${inventoryId}`;
}

/**
 * Waits for an inventory to reach a state `settled` accepts, by event: subscribe first, then
 * read, then wait for a change announcement (or a Redis reconnect) before reading again, until
 * the deadline. Returns the last state read either way.
 */
export async function waitForInventory<T>(
  hub: EventHub,
  channel: string,
  read: () => Promise<T>,
  settled: (value: T) => boolean,
  timeoutMs: number,
): Promise<{ value: T; outcome: 'completed' | 'timeout' }> {
  const deadline = Date.now() + timeoutMs;
  // Each round arms a fresh "changed" promise before reading, so no announcement is missed.
  let wake = (): void => undefined;
  const arm = (): Promise<void> => new Promise<void>((resolve) => (wake = resolve));
  const poke = (): void => wake();
  const unsubscribe = await hub.subscribe(channel, { onMessage: poke, onResync: poke, onClose: poke });
  try {
    for (;;) {
      const changed = arm();
      const value = await read();
      if (settled(value)) return { value, outcome: 'completed' };
      const remaining = deadline - Date.now();
      if (remaining <= 0) return { value, outcome: 'timeout' };
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([changed, new Promise<void>((resolve) => (timer = setTimeout(resolve, remaining)))]);
      clearTimeout(timer);
    }
  } finally {
    unsubscribe();
  }
}
