/**
 * Polls `probe` every `everyMs` until it gives a value (anything but undefined), failing after
 * `withinMs` with `what` and the last thing `describe` saw: a polling loop never outlives its
 * test silently. Prefer awaiting an event where the code under test emits one.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { withinMs?: number; everyMs?: number; describe?: () => string } = {},
): Promise<T> {
  const { withinMs = 30_000, everyMs = 100 } = options;
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not after ${withinMs} ms${options.describe ? ` (${options.describe()})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
