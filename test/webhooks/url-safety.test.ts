import { describe, expect, it } from 'vitest';
import { parseAllowList, parseIpv4, parseIpv6, unsafeUrlReason } from '../../src/modules/webhooks/url-safety';
import { call } from '../support/harness';

describe('unsafe_url rules', () => {
  it('reads every IPv4 spelling', () => {
    expect(parseIpv4('127.0.0.1')).toEqual([127, 0, 0, 1]);
    expect(parseIpv4('0x7f.1')).toEqual([127, 0, 0, 1]);
    expect(parseIpv4('0177.0.0.01')).toEqual([127, 0, 0, 1]);
    expect(parseIpv4('2130706433')).toEqual([127, 0, 0, 1]);
    expect(parseIpv4('10.1')).toEqual([10, 0, 0, 1]);
    expect(parseIpv4('256.0.0.1')).toBeNull();
    expect(parseIpv4('example.com')).toBeNull();
  });

  it('reads IPv6 with compression and embedded IPv4', () => {
    expect(parseIpv6('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(parseIpv6('::ffff:10.0.0.1')).toEqual([...Array(10).fill(0), 0xff, 0xff, 10, 0, 0, 1]);
    expect(parseIpv6('1:2:3:4:5:6:7:8')).toHaveLength(16);
    expect(parseIpv6('1::2::3')).toBeNull();
    expect(parseIpv6('1:2:3:4:5:6:7:8:9')).toBeNull();
  });

  it.each([
    ['http://[::ffff:10.0.0.1]/', true],
    ['http://[::ffff:8.8.8.8]/', false],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', true],
    ['http://[::127.0.0.1]/', true],
    ['http://[2001:db8::1]/', true],
    ['http://[2001::1]/', true],
    ['http://[fec0::1]/', true],
    ['http://[2a00:1450:4001::200e]/', false],
    ['http://[64:ff9b::808:808]/', false],
    ['http://[::ffff:0:7f00:1]/', true],
    ['http://[0:0:0:0:ffff:0:7f00:1]/', true],
    ['http://[::ffff:0:127.0.0.1]/', true],
    ['http://[::ffff:0:808:808]/', true],
    ['http://[64:ff9b:1::7f00:1]/', true],
    ['http://[64:ff9b:1::808:808]/', true],
    ['http://[64:ff9b:1:ffff::1]/', true],
    ['http://[64:ff9b:2::808:808]/', false],
    ['http://LOCALHOST./', true],
    ['http://printer.local/', true],
    ['http://db.internal/', true],
    ['http://192.0.2.10/', true],
    ['http://198.18.0.1/', true],
    ['http://100.127.255.255/', true],
    ['http://100.128.0.1/', false],
    ['http://172.32.0.1/', false],
    ['http://1.2.3.4.5/', true],
    ['https://example.com/', false],
  ])('%s unsafe: %s', (url, unsafe) => {
    expect(unsafeUrlReason(url) !== null).toBe(unsafe);
  });

  it('lets allow-listed hosts through, but never other schemes or credentials', () => {
    const allow = parseAllowList(' 127.0.0.1 ,LocalHost,[::1]');
    expect(allow).toEqual(['127.0.0.1', 'localhost', '::1']);
    expect(unsafeUrlReason('http://127.0.0.1:8787/hook', allow)).toBeNull();
    expect(unsafeUrlReason('http://localhost/hook', allow)).toBeNull();
    expect(unsafeUrlReason('http://[::1]/hook', allow)).toBeNull();
    expect(unsafeUrlReason('http://10.0.0.1/hook', allow)).not.toBeNull();
    expect(unsafeUrlReason('ftp://localhost/hook', allow)).toBe('url must use http or https');
    expect(unsafeUrlReason('http://a:b@localhost/hook', allow)).toBe('url must not contain credentials');
  });
});

describe('OpenAPI document', () => {
  it('describes the webhook endpoint routes with their domain errors', async () => {
    const doc = (await call('GET', '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/webhook-endpoints'])).toEqual(['post', 'get']);
    expect(doc.paths['/v1/webhook-endpoints'].post.responses['409']).toBeDefined();
    expect(doc.paths['/v1/webhook-endpoints/{id}'].delete.responses['404']).toBeDefined();
  });
});
