/**
 * Routing is wouter's (history API, `:param` patterns, <Switch>/<Route>). This module keeps the
 * dashboard's small vocabulary on top of it, so pages import one place: `Link to=`, `navigate`,
 * and `useLocation()` with the query string already parsed.
 */
import { useLocation as useWouterLocation, useSearch } from 'wouter';
import { navigate as browserNavigate } from 'wouter/use-browser-location';

export { Link, Redirect, Route, Switch } from 'wouter';

/** The current path plus query string. */
export function useLocation(): { pathname: string; search: URLSearchParams } {
  const [pathname] = useWouterLocation();
  const search = useSearch();
  return { pathname, search: new URLSearchParams(search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  browserNavigate(to, { replace: options.replace ?? false });
}
