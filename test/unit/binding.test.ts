import { describe, expect, it } from 'vitest';
import { allowedHostNames, hostNameOf, isLoopbackHost } from '../../src/domain/binding.js';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('safe binding rules', () => {
  it('only loopback addresses count as loopback', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', 'localhost.example.com', '128.0.0.1']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it("the Host header's port never matters, and names compare case-insensitively", () => {
    expect(hostNameOf('LocalHost:7700')).toBe('localhost');
    expect(hostNameOf('[::1]:7700')).toBe('[::1]');
    expect(hostNameOf('[::1]')).toBe('[::1]');
    expect(hostNameOf('office.example.com.')).toBe('office.example.com');
    expect(hostNameOf('')).toBeNull();
    expect(hostNameOf(undefined)).toBeNull();
    expect(hostNameOf(':7700')).toBeNull();
  });

  it('the allowed names are the loopback names, the bound address (IPv6 in brackets) and the listed ones', () => {
    expect([...allowedHostNames('::1', ['Office.Lan'])].sort()).toEqual(['127.0.0.1', '[::1]', 'localhost', 'office.lan']);
  });

  it('a non-loopback OFFICE_HOST with no OFFICE_API_TOKEN is a ConfigError that says why and how to fix it', () => {
    expect(() => loadConfig({ OFFICE_HOST: '0.0.0.0' })).toThrow(ConfigError);
    expect(() => loadConfig({ OFFICE_HOST: '0.0.0.0' })).toThrow(/OFFICE_HOST="0\.0\.0\.0".*OFFICE_API_TOKEN/s);
    expect(loadConfig({ OFFICE_HOST: '0.0.0.0', OFFICE_API_TOKEN: 't' }).host).toBe('0.0.0.0');
    expect(loadConfig({ OFFICE_HOST: 'localhost' }).host).toBe('localhost');
    expect(loadConfig({ OFFICE_ALLOWED_HOSTS: ' a.lan, ,b.lan ' }).allowedHosts).toEqual(['a.lan', 'b.lan']);
  });
});
