/**
 * The CLI's HTTP client: the API's base URL and token from the environment, the API's error
 * envelope turned into a readable message, and every failure carrying the exit code it means.
 */

export const EXIT = {
  ok: 0,
  /** The API refused the request (4xx/5xx). */
  api: 1,
  /** The command line itself is wrong. */
  usage: 2,
  /** Nothing answered at OFFICE_API_URL (or on OFFICE_PORT). */
  connect: 3,
} as const;

export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

export const DEFAULT_API_URL = 'http://127.0.0.1:7700';

/**
 * OFFICE_API_URL when set (a scheduler elsewhere, or behind a proxy); otherwise the local one on
 * OFFICE_PORT, the variable `npm start` itself listens on, so one setting serves both.
 */
export function apiUrlFromEnv(env: NodeJS.ProcessEnv): string {
  if (env.OFFICE_API_URL) return env.OFFICE_API_URL;
  const port = env.OFFICE_PORT;
  if (!port) return DEFAULT_API_URL;
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    throw new CliError(`OFFICE_PORT '${port}' is not a port number (1 to 65535); set it to the scheduler's port, or set OFFICE_API_URL`, EXIT.usage);
  }
  return `http://127.0.0.1:${Number(port)}`;
}

export class ApiClient {
  readonly baseUrl: string;

  constructor(baseUrl: string, private readonly token: string | undefined) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    try {
      const url = new URL(this.baseUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    } catch {
      throw new CliError(`OFFICE_API_URL '${baseUrl}' is not an http(s) URL; expected something like ${DEFAULT_API_URL}`, EXIT.usage);
    }
  }

  static fromEnv(env: NodeJS.ProcessEnv): ApiClient {
    return new ApiClient(apiUrlFromEnv(env), env.OFFICE_API_TOKEN || undefined);
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, body);
  }

  delete(path: string): Promise<unknown> {
    return this.request('DELETE', path);
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new CliError(`cannot connect to ${this.baseUrl} (${why}): is the scheduler running at ${this.baseUrl}? Start it with \`office-scheduler serve\`, or set OFFICE_API_URL (or OFFICE_PORT) to where it runs.`, EXIT.connect);
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    if (!response.ok) {
      const envelope = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
      const message = envelope?.message ?? (typeof json === 'string' && json ? json : response.statusText);
      const hint = response.status === 401
        ? this.token ? ' (check OFFICE_API_TOKEN)' : ' (this scheduler needs a token: set OFFICE_API_TOKEN)'
        : '';
      throw new CliError(`${method} ${path} failed: ${response.status} ${envelope?.code ?? 'error'}: ${message}${hint}`, EXIT.api);
    }
    return json as T;
  }
}
