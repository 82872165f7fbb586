/**
 * Sign-in. With OFFICE_API_TOKEN set, the dashboard asks for a token once and trades it for a
 * session cookie (POST /api/office/session): HttpOnly, so no script here can read it, and sent by
 * the browser with every API call and the event stream, so no token ever goes into a URL or into
 * page-readable storage. The token typed in lives only until that one request has been answered.
 */
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, call, office, onUnauthorized } from './api';
import type { components } from '../../src/client/openapi';
import { ErrorBox } from './ui';
import './signin.css';

/** GET /api/office/session: who this browser is (`via: 'open'`: no OFFICE_API_TOKEN is set, nothing to sign in to). */
type SessionInfo = components['schemas']['Session'];

type SignInState = { status: 'checking' } | { status: 'signing-out' } | { status: 'signed-out'; reason: string | null } | { status: 'signed-in'; session: SessionInfo };

interface SignInContextValue {
  session: SessionInfo | null;
  signOut: () => Promise<void>;
}

const SignInContext = createContext<SignInContextValue>({ session: null, signOut: async () => {} });

export function useSignIn(): SignInContextValue {
  return useContext(SignInContext);
}

/** Where the previous dashboard kept the token (page-readable): moved to a session once, then removed. */
const LEGACY_TOKEN_KEY = 'office-scheduler.api-token';

/** The one request that carries a token: it goes in a header, never in the URL. */
async function exchange(token: string): Promise<SessionInfo> {
  return call(office.POST('/api/office/session', { headers: { authorization: `Bearer ${token}` } }));
}

/**
 * A token left by the previous dashboard: `?token=` in the page URL (kept working for one release;
 * the server logs a warning) or the local storage it kept the token in. Taken out of both at once,
 * before anything else can read or log it, and traded for a session.
 */
function takeLegacyToken(): string | null {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl !== null) {
    url.searchParams.delete('token');
    window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
  }
  let stored: string | null = null;
  try {
    stored = window.localStorage.getItem(LEGACY_TOKEN_KEY);
    window.localStorage.removeItem(LEGACY_TOKEN_KEY);
  } catch {
    // Storage disabled: nothing was kept there.
  }
  return fromUrl || stored;
}

const legacyToken = takeLegacyToken();

/** Shows the app once the API lets this browser in, and the sign-in form until then. */
export function SignInGate(props: { children: ReactNode }) {
  const [state, setState] = useState<SignInState>({ status: 'checking' });
  const client = useQueryClient();

  const check = useCallback(async () => {
    try {
      if (legacyToken) await exchange(legacyToken).catch(() => undefined);
      const session = await call(office.GET('/api/office/session'));
      setState(session.signed_in ? { status: 'signed-in', session } : { status: 'signed-out', reason: null });
    } catch (error) {
      setState({ status: 'signed-out', reason: error instanceof ApiError ? error.message : null });
    }
  }, []);
  useEffect(() => void check(), [check]);
  // A session that expires or whose token is revoked while the page is open: back to the form.
  useEffect(() => onUnauthorized(() => setState((s) => s.status === 'signed-in' ? { status: 'signed-out', reason: 'Your session has ended. Sign in again.' } : s)), []);

  const signedIn = (session: SessionInfo) => {
    // Nothing cached under the previous identity may show.
    client.clear();
    setState({ status: 'signed-in', session });
  };
  const signOut = useCallback(async () => {
    // The app leaves the page before the cookie goes: a page still shown would fetch again (a live
    // event, or the cache emptied under it) without the cookie, and meet a 401 for each query.
    setState({ status: 'signing-out' });
    await call(office.DELETE('/api/office/session')).catch(() => undefined);
    client.clear();
    setState({ status: 'signed-out', reason: null });
  }, [client]);

  if (state.status === 'checking') return <p className="muted signin-checking">Connecting…</p>;
  if (state.status === 'signing-out') return <p className="muted signin-checking">Signing out…</p>;
  if (state.status === 'signed-out') return <SignInForm reason={state.reason} onSignedIn={signedIn} />;
  return <SignInContext.Provider value={{ session: state.session, signOut }}>{props.children}</SignInContext.Provider>;
}

function SignInForm(props: { reason: string | null; onSignedIn: (session: SessionInfo) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await exchange(token.trim());
      setToken('');
      props.onSignedIn(session);
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? new ApiError(401, 'unauthorized', 'That token is not valid here. Check OFFICE_API_TOKEN, or ask an admin for a token.') : e as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="signin">
      <form aria-label="Sign in" onSubmit={submit}>
        <h1>Office Scheduler</h1>
        <p className="hint">This scheduler requires an API token: <code>OFFICE_API_TOKEN</code>, or a named token an admin made for you. It is sent once, to start a session; the browser keeps only the session.</p>
        {props.reason && <p className="banner" role="status">{props.reason}</p>}
        <label className="field">
          <span>API token</span>
          <input name="token" type="password" autoComplete="current-password" value={token} onChange={(e) => setToken(e.target.value)} autoFocus required />
        </label>
        <ErrorBox error={error} />
        <footer><button type="submit" className="primary" disabled={busy || token.trim() === ''}>Sign in</button></footer>
      </form>
    </main>
  );
}

/** "Sign out" in the top bar, for a browser that signed in (nothing to sign out of on an open API). */
export function SignOutButton() {
  const { session, signOut } = useSignIn();
  if (session?.via !== 'session') return null;
  return <button type="button" className="link" onClick={() => void signOut()} title={`Signed in as ${session.token_id} (${session.role})`}>Sign out</button>;
}
