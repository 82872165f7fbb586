/**
 * `office-scheduler/client`: a typed client for the HTTP API. Its types are generated from the
 * server's own /openapi.json (openapi.d.ts, `npm run api:types`) and its calls are openapi-fetch's,
 * so a path, a parameter or a body the API does not take fails to compile:
 *
 *   const office = createOfficeClient({ baseUrl: 'http://127.0.0.1:7700', token: process.env.OFFICE_API_TOKEN });
 *   const agents = await unwrap(office.GET('/api/office/agents', { params: { query: { workspace_id } } }));
 *
 * A call answers `{ data, error, response }` as openapi-fetch does; `unwrap` turns an error answer
 * into an OfficeApiError that carries the API's error envelope. A scheduler that cannot be reached
 * is an OfficeUnreachableError. This module depends on nothing but openapi-fetch, so it runs in
 * Node and in a browser alike.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './openapi.js';

export type { components, operations, paths } from './openapi.js';
export type { Middleware } from 'openapi-fetch';

/** The API's named entities: `Schemas['Agent']`, `Schemas['Run']`, … */
export type Schemas = components['schemas'];
/** The JSON body an operation takes, by its operationId: `RequestBody<'createAgent'>`. */
export type RequestBody<Op extends keyof operations> =
  operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
export type OfficeClient = Client<paths>;

export interface OfficeClientOptions {
  /** Where the scheduler answers, e.g. `http://127.0.0.1:7700`; `''` in a browser page the scheduler serves. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`: OFFICE_API_TOKEN, a named API token or a run token. Leave it out for a server with no token, or a browser signed in by cookie. */
  token?: string | undefined;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Another fetch (a test's, a proxy's); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** One entry of a validation_error's `details`: the offending field and what is wrong with it. */
export interface ErrorDetail { path?: string; message?: string }

/** The API refused a request: its status and the code, message and details of its error envelope. */
export class OfficeApiError extends Error {
  override readonly name = 'OfficeApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** The request's URL, when known. */
    readonly url = '',
  ) {
    super(message);
  }

  /** The error an answer carries: the envelope when the body is one, else the status line or the body's text. */
  static fromAnswer(response: Response, body: unknown): OfficeApiError {
    const envelope = isEnvelope(body) ? body.error : undefined;
    const text = typeof body === 'string' && body ? body : `${response.status} ${response.statusText}`.trim();
    return new OfficeApiError(
      response.status,
      envelope?.code ?? 'http_error',
      envelope?.message ?? text,
      Array.isArray(envelope?.details) ? envelope.details as ErrorDetail[] : [],
      response.url,
    );
  }
}

/** Nothing answered at the client's base URL (refused, unknown host, reset). */
export class OfficeUnreachableError extends Error {
  override readonly name = 'OfficeUnreachableError';

  constructor(readonly baseUrl: string, readonly reason: string, options?: ErrorOptions) {
    super(`cannot reach the scheduler at ${baseUrl} (${reason})`, options);
  }
}

export function createOfficeClient(options: OfficeClientOptions): OfficeClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return createClient<paths>({ baseUrl, headers, fetch: reachable(baseUrl, options.fetch) });
}

/** The body of a successful answer (undefined for 204); an OfficeApiError for any other answer. */
export async function unwrap<T>(answer: Promise<Answer<T>> | Answer<T>): Promise<T> {
  const { data, error, response } = await answer;
  if (!response.ok) throw OfficeApiError.fromAnswer(response, error);
  return data as T;
}

interface Answer<T> { data?: T; error?: unknown; response: Response }

function reachable(baseUrl: string, custom: OfficeClientOptions['fetch']): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      // Looked up per call, not captured: a page or a test may replace the global fetch later.
      return await (custom ?? globalThis.fetch)(request);
    } catch (error) {
      // A request its caller aborted is the caller's business, not an outage.
      if (request.signal.aborted) throw error;
      throw new OfficeUnreachableError(baseUrl || 'this page\'s server', reasonOf(error), { cause: error });
    }
  };
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

function isEnvelope(body: unknown): body is { error: { code?: string; message?: string; details?: unknown } } {
  return typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'object' && (body as { error?: unknown }).error !== null;
}
