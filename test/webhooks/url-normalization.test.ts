import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { rowOnShards } from '../support/db';

/**
 * The stored and echoed URL is the one the runtime's URL parser delivers to;
 * spellings that other parsers read as another host are refused.
 */
describe('webhook endpoint URLs', () => {
  it.each([
    ['HTTPS://EXAMPLE.com', 'https://example.com/'],
    ['https://example.com:443/a/./b/../c', 'https://example.com/a/c'],
    ['http://Hooks.Example.com:80/in?x=1', 'http://hooks.example.com/in?x=1'],
    ['https://bücher.example/in', 'https://xn--bcher-kva.example/in'],
    ['https://example.com/ü', 'https://example.com/%C3%BC'],
    ['https://example.com/users/%40me', 'https://example.com/users/%40me'],
  ])('stores and echoes %s as %s', async (sent, normalized) => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const res = await ws.api('POST', '/v1/webhook-endpoints', { url: sent });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.url).toBe(normalized);
    const listed = await ws.api('GET', '/v1/webhook-endpoints');
    expect(listed.body.data.map((e: { url: string }) => e.url)).toEqual([normalized]);
    const stored = await rowOnShards<{ url: string }>('SELECT url FROM webhook_endpoints WHERE id = ?', res.body.id);
    expect(stored?.url).toBe(normalized);
  });

  it.each([
    ['https://example.com\\@evil.com/', 'url must not contain backslashes'],
    ['https:\\\\example.com/hook', 'url must not contain backslashes'],
    ['https://evil.com#@example.com/', 'url must not contain "@"'],
    ['https://example.com/?next=@evil.com', 'url must not contain "@"'],
    ['https://example.com/users/@me', 'url must not contain "@"'],
    ['https:example.com/hook', 'url must start with http:// or https://'],
    ['https:/example.com/hook', 'url must start with http:// or https://'],
    ['http://exa\tmple.com/', 'url must not contain whitespace or control characters'],
    [' https://example.com/', 'url must not contain whitespace or control characters'],
    ['https://example.com/\n', 'url must not contain whitespace or control characters'],
  ])('refuses %s: %s', async (url, message) => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const res = await ws.api('POST', '/v1/webhook-endpoints', { url });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'unsafe_url', message });
  });

  it.each([
    'http://169.254.169.254../',
    'http://10.0.0.1../hook',
    'http://localhost../',
    'http://localhost.../',
    'https://example.com../hook',
    'https://.example.com/hook',
    'https://hooks..example.com/hook',
    'http://127.0.0.1%2E%2E/',
  ])('refuses %s: a host with an empty label', async (url) => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const res = await ws.api('POST', '/v1/webhook-endpoints', { url });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toEqual({
      code: 'unsafe_url',
      message: 'url host must not have empty labels (a leading dot, ".." or more than one trailing dot)',
    });
    expect(await rowOnShards('SELECT id FROM webhook_endpoints WHERE workspace_id = ?', ws.id)).toBeFalsy();
  });

  it('still takes one trailing dot (the fully qualified spelling) and keeps it', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const res = await ws.api('POST', '/v1/webhook-endpoints', { url: 'https://example.com./hook' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.url).toBe('https://example.com./hook');
  });

  it('refuses a URL that grows past 2048 characters once normalized', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const res = await ws.api('POST', '/v1/webhook-endpoints', { url: `https://example.com/${'ü'.repeat(700)}` });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'unsafe_url', message: 'url must be at most 2048 characters once normalized' });
  });
});
