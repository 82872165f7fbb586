/**
 * The dashboard's only way to the API: JSON in and out, the session cookie the browser sends by
 * itself (signin.tsx), and the API's error envelope turned into an ApiError whose message is the
 * server's own.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Array<{ path?: string; message?: string }> = [],
  ) {
    super(message);
  }
}

const unauthorizedListeners = new Set<() => void>();

/** Called when the API answers 401: the app asks for a token. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export async function api<T = unknown>(method: string, path: string, body?: unknown, options: { signal?: AbortSignal; headers?: Record<string, string> } = {}): Promise<T> {
  const headers: Record<string, string> = { ...options.headers };
  // Every write says it is JSON, with a body or not: the server takes a cookie-signed-in write only
  // with this content type, which a form on another site cannot send (CSRF; see domain/sessions.ts).
  if (method !== 'GET' && method !== 'HEAD') headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: options.signal });
  } catch (error) {
    // A request the page no longer needs: the query cache expects the abort itself.
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, 'unreachable', 'Cannot reach the scheduler. Is it running?');
  }
  const text = await response.text();
  const json = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const error = (json as { error?: { code?: string; message?: string; details?: ApiError['details'] } } | undefined)?.error;
    if (response.status === 401) unauthorizedListeners.forEach((listener) => listener());
    throw new ApiError(response.status, error?.code ?? 'http_error', error?.message ?? `${response.status} ${response.statusText}`, error?.details ?? []);
  }
  return json as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
