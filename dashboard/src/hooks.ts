import { useCallback, useEffect, useState } from 'react';
import { api, ApiError } from './api';
import { useLive } from './live';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/**
 * GETs `path` (null: nothing yet) and refetches whenever the live stream reports a change, so
 * the page stays current without a reload. The previous data stays on screen while refetching.
 */
export function useApi<T>(path: string | null, options: { live?: boolean } = {}): Loaded<T> {
  const { version } = useLive();
  const live = options.live ?? true;
  const [nonce, setNonce] = useState(0);
  const [state, setState] = useState<{ path: string | null; data: T | undefined; error: ApiError | null }>({ path: null, data: undefined, error: null });

  useEffect(() => {
    if (path === null) return;
    let cancelled = false;
    api<T>('GET', path).then(
      (data) => { if (!cancelled) setState({ path, data, error: null }); },
      (error: ApiError) => { if (!cancelled) setState((s) => ({ path, data: s.path === path ? s.data : undefined, error })); },
    );
    return () => { cancelled = true; };
  }, [path, live ? version : 0, nonce]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  const current = state.path === path;
  return { data: current ? state.data : undefined, error: current ? state.error : null, loading: !current, reload };
}

/** The current time, re-rendered every `everyMs`, for "in 8s" and "3m ago". */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** A query string from the defined entries only. */
export function query(params: Record<string, string | number | undefined | null | false>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== false && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
