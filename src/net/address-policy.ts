import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The one outgoing-address policy of every fetch made on behalf of a target (site pages, registry
 * metadata, archives, every redirect hop): public unicast addresses only, checked after DNS
 * resolution at connect time (a rebinding answer cannot slip through), plus the origins an
 * operator configured (registry bases), which may be private.
 */

/** A destination the policy refuses; `code` is what callers branch on. */
export class BlockedAddress extends Error {
  readonly code = 'EBLOCKED';
  constructor(readonly host: string) {
    super(`${host} resolves to a non-public address`);
    this.name = 'BlockedAddress';
  }
}

/** The refusal somewhere in an error's cause chain (undici and npm wrap connect errors), or null. */
export function blockedIn(error: unknown): BlockedAddress | null {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof BlockedAddress) return current;
    if ((current as { code?: unknown }).code === 'EBLOCKED') {
      const host = (current as { host?: unknown }).host;
      return new BlockedAddress(typeof host === 'string' ? host : 'a host');
    }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

const NAT64_LOCAL = ipaddr.IPv6.parse('64:ff9b:1::');
const IPV4_COMPATIBLE = ipaddr.IPv6.parse('::');

function ipv4Of(bytes: readonly number[], at: number, invert = false): ipaddr.IPv4 {
  const octets = bytes.slice(at, at + 4).map((b) => (invert ? b ^ 0xff : b));
  return new ipaddr.IPv4(octets);
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that deliver to it: mapped
 * (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96)
 * and 6to4 (2002::/16). null: a plain IPv6 address.
 */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return ipv4Of(bytes, 12);
    case '6to4':
      return ipv4Of(bytes, 2);
    case 'rfc6052':
      // 64:ff9b::/96 only; the local-use 64:ff9b:1::/48 is refused below (its layout depends on the operator's prefix length).
      return address.match(NAT64_LOCAL, 48) ? null : ipv4Of(bytes, 12);
    default:
      // ::/96 is the deprecated IPv4-compatible form (::7f00:1 is 127.0.0.1); ipaddr.js calls it unicast.
      return address.match(IPV4_COMPATIBLE, 96) ? ipv4Of(bytes, 12) : null;
  }
}

/**
 * Whether an address is public unicast. IPv6 forms that embed an IPv4 address are judged by it;
 * Teredo (2001::/32, a relay and an obfuscated NAT mapping, never a registry) and local-use
 * NAT64 (64:ff9b:1::/48) are refused with the other special ranges.
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const ipv4 = embeddedIpv4(parsed as ipaddr.IPv6);
    if (ipv4 !== null) return ipv4.range() === 'unicast';
  }
  return parsed.range() === 'unicast';
}

/** The production address policy: everything when private addresses are allowed, else public unicast. */
export function addressPolicy(allowPrivate: boolean): (address: string) => boolean {
  return allowPrivate ? () => true : isPublicAddress;
}

/** A host as a URL names it, without the brackets of an IPv6 literal. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Whether a URL's host may be connected to: names are left to the resolver's check, literals are checked here. */
export function literalAllowed(hostname: string, allowAddress: (address: string) => boolean): boolean {
  const host = bareHost(hostname);
  return isIP(host) === 0 || allowAddress(host);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type PolicyLookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;

/** A `lookup` for socket connections that keeps only the addresses the policy allows; none left is `BlockedAddress`. */
export function policyLookup(allowAddress: (address: string) => boolean): PolicyLookup {
  return (hostname, opts, callback) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const usable = addresses.filter((a) => allowAddress(a.address));
      const first = usable[0];
      if (first === undefined) return callback(new BlockedAddress(hostname), []);
      if (opts.all === true) callback(null, usable);
      else callback(null, first.address, first.family);
    });
  };
}
