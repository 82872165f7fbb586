import { keepPreviousData, QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { ApiError, get } from './api';
import { useLive } from './live';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/**
 * The one query cache. The live stream, not a timer or window focus, says when data is stale
 * (see useLiveRefresh); a failed GET is shown, not retried, since the API's errors are final.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
}

/**
 * GETs `path` (null: nothing yet) through the query cache, keyed by the path: two components
 * reading one path share one request. It refetches whenever the live stream reports a change,
 * unless `live` is false; the previous data stays on screen while refetching, and, with
 * `keepPrevious`, while a new path loads (a chart whose range moves on with the clock).
 */
export function useApi<T>(path: string | null, options: { live?: boolean; keepPrevious?: boolean } = {}): Loaded<T> {
  const result = useQuery<T, ApiError>({
    queryKey: [path],
    queryFn: ({ signal }) => get<T>(path!, signal),
    enabled: path !== null,
    meta: { live: options.live ?? true },
    placeholderData: options.keepPrevious ? keepPreviousData : undefined,
  });
  const { refetch } = result;
  const reload = useCallback(() => void refetch(), [refetch]);
  return { data: result.data, error: result.error, loading: result.isPending, reload };
}

/** Marks every live query stale when the stream reports a change; the ones on screen refetch. */
export function useLiveRefresh(): void {
  const { version } = useLive();
  const client = useQueryClient();
  useEffect(() => {
    if (version === 0) return;
    void client.invalidateQueries({ predicate: (q) => q.meta?.live !== false });
  }, [version, client]);
}

/**
 * A write from a page: runs `action`, then refetches what is on screen, so the page shows the
 * change before the stream reports it. `error` holds the last failure until the next attempt.
 */
export function useAction(): { run: <R>(action: () => Promise<R>) => Promise<R | undefined>; error: ApiError | null; busy: boolean; clear: () => void } {
  const client = useQueryClient();
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async <R,>(action: () => Promise<R>): Promise<R | undefined> => {
    setError(null);
    setBusy(true);
    try {
      const result = await action();
      await client.invalidateQueries();
      return result;
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'client_error', String(e)));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, [client]);
  return { run, error, busy, clear: useCallback(() => setError(null), []) };
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

/**
 * The current time, re-rendered as each `stepMs` of the clock begins (every whole minute, not a
 * minute after the page opened): a range that ends with the current minute moves on with it.
 */
export function useClockStep(stepMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    let timer: number;
    const next = () => {
      timer = window.setTimeout(() => {
        setNow(Date.now());
        next();
      }, stepMs - (Date.now() % stepMs));
    };
    next();
    return () => window.clearTimeout(timer);
  }, [stepMs]);
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
