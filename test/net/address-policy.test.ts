import { describe, expect, it } from 'vitest';
import { addressPolicy, BlockedAddress, blockedIn, isPublicAddress, literalAllowed } from '../../src/net/address-policy.js';
import { loadConfig } from '../../src/config.js';

describe('isPublicAddress', () => {
  it.each([
    // IPv4-compatible (::a.b.c.d, deprecated): ipaddr.js calls these unicast.
    ['::7f00:1', false],
    ['::127.0.0.1', false],
    ['::a9fe:a9fe', false],
    ['::a00:1', false],
    ['::808:808', true],
    // IPv4-mapped and IPv4-translated.
    ['::ffff:7f00:1', false],
    ['::ffff:169.254.169.254', false],
    ['::ffff:808:808', true],
    ['::ffff:0:7f00:1', false],
    ['::ffff:0:808:808', true],
    // NAT64 well-known prefix (DNS64 answers every IPv4-only host so in an IPv6-only network).
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b::c0a8:101', false],
    ['64:ff9b::808:808', true],
    // Local-use NAT64: the IPv4's place depends on the operator's prefix length; refused.
    ['64:ff9b:1::808:808', false],
    ['64:ff9b:1:808:8:800::', false],
    // 6to4 carries its IPv4 in bits 16-47.
    ['2002:7f00:1::1', false],
    ['2002:a9fe:a9fe::1', false],
    ['2002:a00:1::1', false],
    ['2002:808:808::1', true],
    // Teredo: a relay and an obfuscated NAT mapping, never a registry.
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['2001:0:808:808:8000:63bf:f7f7:f7f7', false],
    // Plain addresses keep their answers.
    ['::', false],
    ['::1', false],
    ['fe80::1%eth0', false],
    ['fd00::1', false],
    ['2606:4700:4700::1111', true],
    ['8.8.8.8', true],
    ['127.0.0.1', false],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
    expect(addressPolicy(false)(address)).toBe(expected);
    expect(addressPolicy(true)(address)).toBe(true);
  });

  it('checks literal hosts as URLs spell them and leaves names to the resolver', () => {
    expect(literalAllowed('[::7f00:1]', isPublicAddress)).toBe(false);
    expect(literalAllowed('[64:ff9b::808:808]', isPublicAddress)).toBe(true);
    expect(literalAllowed('127.0.0.1', isPublicAddress)).toBe(false);
    expect(literalAllowed('registry.example.test', isPublicAddress)).toBe(true);
  });
});

describe('blockedIn', () => {
  it('finds the refusal through cause chains and by its code', () => {
    const refusal = new BlockedAddress('127.0.0.1:9');
    expect(blockedIn(new Error('outer', { cause: new Error('inner', { cause: refusal }) }))).toBe(refusal);
    expect(blockedIn(Object.assign(new Error('connect'), { code: 'EBLOCKED', host: 'x.test' }))?.host).toBe('x.test');
    expect(blockedIn(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBeNull();
    expect(blockedIn(null)).toBeNull();
  });
});

describe('REGISTRY_ALLOW_PRIVATE_ADDRESSES', () => {
  it('is off unless set', () => {
    expect(loadConfig({}).registryAllowPrivateAddresses).toBe(false);
    expect(loadConfig({ REGISTRY_ALLOW_PRIVATE_ADDRESSES: 'true' }).registryAllowPrivateAddresses).toBe(true);
    expect(() => loadConfig({ REGISTRY_ALLOW_PRIVATE_ADDRESSES: 'maybe' })).toThrow(/REGISTRY_ALLOW_PRIVATE_ADDRESSES/);
  });
});
