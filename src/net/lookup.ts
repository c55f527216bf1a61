import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

const systemLookup: LookupFunction = (hostname, options, callback) => {
  if (options.all === true) dnsLookup(hostname, { ...options, all: true }, (error, addresses) => callback(error, addresses));
  else dnsLookup(hostname, { ...options, all: false }, (error, address, family) => callback(error, address, family));
};

/**
 * A socket `lookup` (net.connect's option) that asks the resolver once for all the connections
 * opening to one name at the same time. A registry client opens up to its connection count at
 * once: against a resolver that drops queries (a firewalled CI) 128 parallel lookups queue in
 * libuv's four resolver threads for tens of seconds, and keep the process alive that long after
 * its work is done; one lookup shared by all of them answers (or fails) them together. Nothing is
 * kept afterwards: the system resolver caches as configured.
 */
export function coalescedLookup(resolve: LookupFunction = systemLookup): LookupFunction {
  const pending = new Map<string, LookupCallback[]>();
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    const key = `${hostname}\u0000${options.all === true}\u0000${options.family ?? 0}\u0000${options.hints ?? 0}`;
    const waiting = pending.get(key);
    if (waiting !== undefined) {
      waiting.push(callback);
      return;
    }
    const callbacks = [callback];
    pending.set(key, callbacks);
    resolve(hostname, options, (error, address, family) => {
      pending.delete(key);
      // Each connection gets its own copy of the list (a caller may reorder it).
      for (const cb of callbacks) cb(error, Array.isArray(address) ? [...address] : address, family);
    });
  };
}
