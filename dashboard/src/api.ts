/**
 * The dashboard's only way to the API: the typed client (office-scheduler/client, src/client) on
 * the page's own origin, with the session cookie the browser sends by itself (signin.tsx). Writes
 * go through `call(office.POST(…))`, typed by the generated paths; the query cache reads by path
 * (`get`, for hooks.ts's useApi). Either way the API's error envelope becomes an ApiError whose
 * message is the server's own.
 */
import { createOfficeClient, OfficeApiError, OfficeUnreachableError, unwrap, type Middleware } from '../../src/client/index';

export { OfficeApiError as ApiError } from '../../src/client/index';

const unauthorizedListeners = new Set<() => void>();

/** Called when the API answers 401: the app asks for a token. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

const dashboardRules: Middleware = {
  onRequest({ request }) {
    // Every write says it is JSON, with a body or not: the server takes a cookie-signed-in write only
    // with this content type, which a form on another site cannot send (CSRF; see domain/sessions.ts).
    if (request.method !== 'GET' && request.method !== 'HEAD') request.headers.set('content-type', 'application/json');
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) unauthorizedListeners.forEach((listener) => listener());
    return response;
  },
};

export const office = createOfficeClient({ baseUrl: '' });
office.use(dashboardRules);

/** The body of a successful answer; an ApiError for a refusal, or for a scheduler that cannot be reached. */
export async function call<T>(answer: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  try {
    return await unwrap(answer);
  } catch (error) {
    if (error instanceof OfficeUnreachableError) throw new OfficeApiError(0, 'unreachable', 'Cannot reach the scheduler. Is it running?');
    throw error;
  }
}

/**
 * GETs a path the page built, with its query string, as the query cache keys it. Typed by the
 * caller (`useApi<Agent[]>(…)`, whose types are the generated ones: types.ts).
 */
export function get<T>(path: string, signal?: AbortSignal): Promise<T> {
  return call((office.GET as unknown as ByPath<T>)(path, { signal }));
}

/** The client's GET for a path already built, query and all: the path's type is the caller's word. */
type ByPath<T> = (path: string, init: { signal?: AbortSignal | undefined }) => Promise<{ data?: T; error?: unknown; response: Response }>;
