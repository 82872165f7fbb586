/**
 * Safe binding (API.md, "Running in production"): which addresses may be bound without a token,
 * and which Host headers a request may carry. A foreign Host is the precondition of DNS rebinding,
 * through which a web page could reach a scheduler listening on localhost.
 */
import { isIP } from 'node:net';

/** Names that always mean "this machine", whatever address is bound. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Lower-cased, IPv6 in brackets, no trailing dot: the form a Host header's name is compared in. */
export function normalizeHostName(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  return isIP(lower) === 6 ? `[${lower}]` : lower;
}

/** True for an address (or `localhost`) that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const name = normalizeHostName(host).replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name === '::1') return true;
  const v4 = name.startsWith('::ffff:') ? name.slice('::ffff:'.length) : name;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** The Host header's name, without its port (the port never matters for matching). Null when there is none. */
export function hostNameOf(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim();
  const bracketed = /^(\[[^\]]*\])(?::\d*)?$/.exec(value);
  if (bracketed) return normalizeHostName(bracketed[1]!);
  const name = value.replace(/:\d*$/, '');
  return name ? normalizeHostName(name) : null;
}

/** The names a Host header may carry: the loopback names, the bound address, and the operator's list. */
export function allowedHostNames(boundHost: string, extra: readonly string[]): ReadonlySet<string> {
  return new Set([...LOOPBACK_NAMES, boundHost, ...extra].map(normalizeHostName));
}
