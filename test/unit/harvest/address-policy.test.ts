/**
 * Which addresses a harvest may reach (shared/harvest/address-policy.ts): every non-public
 * IPv4 and IPv6 range, IPv6 forms that carry an IPv4 address, and the allow-list.
 */
import { expect } from 'chai';
import {
  AddressPolicy,
  classifyAddress,
  embeddedIpv4,
  parseAllowedEntry,
} from '../../../shared/harvest/address-policy.js';
import { loadConfig } from '../../../shared/config/index.js';

describe('harvest address policy', () => {
  it('classifies the non-public IPv4 ranges', () => {
    const cases: [string, string][] = [
      ['0.0.0.0', 'unspecified ("this network")'],
      ['10.1.2.3', 'private'],
      ['100.64.0.1', 'shared (carrier-grade NAT)'],
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['169.254.169.254', 'link-local'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['198.18.0.1', 'benchmarking'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'reserved'],
    ];
    for (const [address, kind] of cases) expect(classifyAddress(address), address).to.equal(kind);
  });

  it('leaves public IPv4 and IPv6 addresses alone', () => {
    for (const address of [
      '8.8.8.8',
      '172.32.0.1',
      '192.169.0.1',
      '100.128.0.1',
      '2a00:1450:4001::200e',
      '2001:4860:4860::8888',
    ])
      expect(classifyAddress(address), address).to.equal(undefined);
  });

  it('classifies the non-public IPv6 ranges', () => {
    const cases: [string, string][] = [
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['fd00::5', 'unique local (private)'],
      ['fc12:3456::1', 'unique local (private)'],
      ['ff02::1', 'multicast'],
      ['2001:db8::1', 'documentation'],
    ];
    for (const [address, kind] of cases) expect(classifyAddress(address), address).to.equal(kind);
  });

  it('judges IPv6 addresses that carry an IPv4 address by that address', () => {
    const cases: [string, string | undefined, string | undefined][] = [
      ['::ffff:127.0.0.1', '127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', '127.0.0.1', 'loopback'],
      ['::ffff:a9fe:a9fe', '169.254.169.254', 'link-local'],
      ['::ffff:8.8.8.8', '8.8.8.8', undefined],
      ['::127.0.0.1', '127.0.0.1', 'loopback'],
      ['64:ff9b::a00:1', '10.0.0.1', 'private'],
      ['2002:c0a8:101::1', '192.168.1.1', 'private'],
      ['::1', undefined, 'loopback'],
    ];
    for (const [address, carried, kind] of cases) {
      expect(embeddedIpv4(address), address).to.equal(carried);
      expect(classifyAddress(address), address).to.equal(kind);
    }
  });

  it('allows exactly what the allow-list names, mapped forms included', () => {
    const policy = new AddressPolicy(['127.0.0.1:*', '10.1.2.0/24:*', '[fd00::5]:*']);
    expect(policy.refusal('127.0.0.1', 9200)).to.equal(undefined);
    expect(policy.refusal('::ffff:127.0.0.1', 9200)).to.equal(undefined);
    expect(policy.refusal('127.0.0.2', 80)).to.equal('loopback');
    expect(policy.refusal('::1', 80)).to.equal('loopback');
    expect(policy.refusal('10.1.2.200', 8080)).to.equal(undefined);
    expect(policy.refusal('10.1.3.1', 80)).to.equal('private');
    expect(policy.refusal('fd00::5', 8080)).to.equal(undefined);
    expect(policy.refusal('fd00::6', 80)).to.equal('unique local (private)');
    expect(policy.refusal('8.8.8.8', 9200)).to.equal(undefined);
    expect(new AddressPolicy().refusal('127.0.0.1', 80)).to.equal('loopback');
  });

  it('judges the port too: a named port, every port (*), or 80 and 443 for a bare entry', () => {
    const policy = new AddressPolicy(['127.0.0.1:8123', '10.0.0.0/8', '[fd00::5]:8443']);
    expect(policy.refusal('127.0.0.1', 8123)).to.equal(undefined);
    expect(policy.refusal('::ffff:127.0.0.1', 8123)).to.equal(undefined);
    expect(policy.refusal('127.0.0.1', 9200)).to.equal('loopback; port 9200 is not allowed for it');
    expect(policy.refusal('127.0.0.1', 80)).to.equal('loopback; port 80 is not allowed for it');
    expect(policy.refusal('10.9.9.9', 80)).to.equal(undefined);
    expect(policy.refusal('10.9.9.9', 443)).to.equal(undefined);
    expect(policy.refusal('10.9.9.9', 6379)).to.equal('private; port 6379 is not allowed for it');
    expect(policy.refusal('fd00::5', 8443)).to.equal(undefined);
    expect(policy.refusal('fd00::5', 443)).to.match(/port 443 is not allowed/);
    // Two entries for one address: either one's ports.
    const both = new AddressPolicy(['127.0.0.1:8123', '127.0.0.1:8124']);
    expect(both.refusal('127.0.0.1', 8124)).to.equal(undefined);
    expect(parseAllowedEntry('127.0.0.1').ports).to.deep.equal([80, 443]);
    expect(parseAllowedEntry('127.0.0.1:*').ports).to.equal(undefined);
    expect(parseAllowedEntry('::1').ports).to.deep.equal([80, 443]);
    expect(parseAllowedEntry('[::1]:9000').ports).to.deep.equal([9000]);
    expect(parseAllowedEntry('[fd00::/8]:*')).to.deep.include({ network: 'fd00::', prefix: 8 });
  });

  it('refuses malformed allow-list entries, also in the configuration', () => {
    for (const entry of [
      'localhost',
      '10.0.0.0/33',
      '::1/129',
      '10.0.0.0/8/1',
      '10.0.0.0/x',
      '127.0.0.1:0',
      '127.0.0.1:65536',
      '127.0.0.1:http',
      '[::1]:',
      'localhost:80',
    ])
      expect(() => parseAllowedEntry(entry), entry).to.throw();
    expect(() => loadConfig({ HARVEST_ALLOWED_ADDRESSES: '127.0.0.1, nope' })).to.throw(
      /HARVEST_ALLOWED_ADDRESSES: "nope" is not an IP address/,
    );
    expect(
      loadConfig({ HARVEST_ALLOWED_ADDRESSES: '127.0.0.1:8123, 10.0.0.0/8' }).harvest
        .allowedAddresses,
    ).to.deep.equal(['127.0.0.1:8123', '10.0.0.0/8']);
  });
});
