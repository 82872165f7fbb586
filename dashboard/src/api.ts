/**
 * The dashboard's only way to the API: JSON in and out, the API token when one is set, and the
 * API's error envelope turned into an ApiError whose message is the server's own.
 */
const TOKEN_KEY = 'office-scheduler.api-token';

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

/** A `?token=` in the page URL is stored (and removed from the address bar), for OFFICE_API_TOKEN deployments. */
export function adoptTokenFromUrl(): void {
  const url = new URL(window.location.href);
  const token = url.searchParams.get('token');
  if (token === null) return;
  setToken(token);
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
}

export function getToken(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  try {
    if (token) window.localStorage.setItem(TOKEN_KEY, token);
    else window.localStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage can be disabled; the token then lasts until the page is closed.
  }
}

export async function api<T = unknown>(method: string, path: string, body?: unknown, options: { signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
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
