/**
 * First SIGINT/SIGTERM: run `drain` (stop accepting, finish or release work, close pools).
 * A second signal while draining exits at once. A child of `pkgscope start` also drains when
 * its IPC channel to the supervisor closes, so a killed supervisor leaves no orphans behind.
 */
export function onShutdownSignals(
  drain: (signal: NodeJS.Signals) => Promise<void>,
  exit: (code: number) => void = (code) => process.exit(code),
): () => void {
  let draining = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (draining) {
      exit(130);
      return;
    }
    draining = true;
    drain(signal).then(
      () => exit(0),
      () => exit(1),
    );
  };
  const orphaned = (): void => handler('SIGTERM');
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  if (process.connected) process.on('disconnect', orphaned);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
    process.off('disconnect', orphaned);
  };
}
