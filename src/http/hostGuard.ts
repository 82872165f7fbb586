import type { FastifyInstance } from 'fastify';
import { allowedHostNames, hostNameOf } from '../domain/binding.js';
import { errorBody } from './errors.js';

/**
 * Refuses, with a 421, a request whose Host header names neither a loopback name, the bound address
 * nor a name in OFFICE_ALLOWED_HOSTS: a page that rebinds its own domain to 127.0.0.1 still sends
 * its own name, so it never reaches the API.
 */
export function registerHostGuard(app: FastifyInstance, boundHost: string, allowedHosts: readonly string[]): void {
  const allowed = allowedHostNames(boundHost, allowedHosts);
  app.addHook('onRequest', async (request, reply) => {
    const name = hostNameOf(request.headers.host);
    if (name !== null && allowed.has(name)) return;
    request.log.warn({ host: request.headers.host ?? null }, 'refused a request for a host this server does not serve');
    return reply.code(421).send(errorBody('misdirected_request',
      `this server does not answer for Host ${JSON.stringify(request.headers.host ?? '')}; ` +
      'use localhost or 127.0.0.1, or add the name to OFFICE_ALLOWED_HOSTS (comma-separated)'));
  });
}
