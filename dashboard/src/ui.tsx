/** Small shared pieces: badges, modals, tabs, JSON blocks, field rows, times and ids. */
import { useEffect, useId, useState, type ReactNode } from 'react';
import { browserZone, formatInZone, formatTime, ID_IN_TEXT, relativeTime, shortId, statusTone, type Tone } from './format';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from './api';
import { useNow } from './hooks';

export function Badge(props: { tone?: Tone; children: ReactNode; title?: string }) {
  return <span className={`badge tone-${props.tone ?? 'neutral'}`} title={props.title}>{props.children}</span>;
}

export function StatusBadge(props: { status: string }) {
  return <Badge tone={statusTone(props.status)}>{props.status.replaceAll('_', ' ')}</Badge>;
}

/** "3m ago", "in 8s"; the time itself, in the browser's zone and naming it, on hover. */
export function Time(props: { at: string | null | undefined }) {
  const now = useNow();
  if (!props.at) return <span className="muted">-</span>;
  return <time dateTime={props.at} title={`${formatTime(props.at)} ${browserZone()}`}>{relativeTime(props.at, now)}</time>;
}

/** Says which zone a list or a chart of bare clock times is drawn in: the browser's. */
export function YourZoneHint() {
  return <span className="hint">times in {browserZone()} (your time)</span>;
}

/**
 * A time as a clock in `zone` reads it, the zone named (`2026-12-02 09:00 Europe/Paris`): a
 * routine's times in its own zone. On hover, the browser's own time of it and how far it is.
 */
export function ZonedTime(props: { at: string | null | undefined; zone: string }) {
  const now = useNow();
  if (!props.at) return <span className="muted">-</span>;
  const local = browserZone();
  const yours = local === props.zone ? '' : `your time: ${formatInZone(props.at, local)}, `;
  return <time dateTime={props.at} className="zoned" title={`${yours}${relativeTime(props.at, now)}`}>{formatInZone(props.at, props.zone)}</time>;
}

/** An id shortened by design (format.ts shortId), the whole of it in its title and a button that copies it. */
export function ShortId(props: { id: string }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = () => {
    // The clipboard may be refused (an insecure origin, no permission): the title still shows the id.
    const write = navigator.clipboard?.writeText(props.id) ?? Promise.reject(new Error('no clipboard'));
    write.then(() => setCopied('yes'), () => setCopied('failed'));
  };
  useEffect(() => {
    if (copied === 'no') return;
    const timer = window.setTimeout(() => setCopied('no'), 1500);
    return () => window.clearTimeout(timer);
  }, [copied]);
  return (
    <span className="short-id" data-id={props.id}>
      <code title={props.id}>{shortId(props.id)}</code>
      <button type="button" className="copy" aria-label={`Copy ${props.id}`} title={copied === 'failed' ? `Could not copy; the id is ${props.id}` : 'Copy the whole id'}
        onClick={(event) => { event.preventDefault(); event.stopPropagation(); copy(); }}>{copied === 'yes' ? '✓' : <CopyIcon />}</button>
    </span>
  );
}

/** Two overlapping sheets, drawn rather than a glyph, which not every font has. */
function CopyIcon() {
  return (
    <svg width="11" height="11" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <rect x="5" y="5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
      <path d="M11 3.5V3a1.5 1.5 0 0 0-1.5-1.5H3A1.5 1.5 0 0 0 1.5 3v6.5A1.5 1.5 0 0 0 3 11h.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
    </svg>
  );
}

/**
 * A sentence from the API (an explain, an activity message, an error) as the pages show it: each id
 * shortened by design, each ISO time in the browser's zone, named, and each bare clock time marked
 * UTC, the zone the API writes them in (src/domain/explain.ts).
 */
export function ApiSentence(props: { text: string }) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of props.text.matchAll(IN_SENTENCE)) {
    parts.push(props.text.slice(last, match.index));
    const [found] = match;
    if (/^[a-z]/.test(found)) parts.push(<ShortId key={match.index} id={found} />);
    else if (found.includes('T')) parts.push(<ZonedTime key={match.index} at={found} zone={browserZone()} />);
    else parts.push(`${found} UTC`);
    last = match.index + found.length;
  }
  parts.push(props.text.slice(last));
  return <>{parts}</>;
}

/** Ids, ISO times, and clock times (hh:mm:ss) that no zone follows. */
const IN_SENTENCE = new RegExp(`${ID_IN_TEXT.source}|\\b\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z|\\b\\d{2}:\\d{2}:\\d{2}\\b(?![.:\\d]| ?(?:UTC|GMT|[A-Z][a-z]+/))`, 'g');

export function Modal(props: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const titleId = useId();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => { if (event.key === 'Escape') props.onClose(); };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [props.onClose]);
  return (
    <div className="backdrop" onMouseDown={(event) => { if (event.target === event.currentTarget) props.onClose(); }}>
      <div className={`modal${props.wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-labelledby={titleId}>
        <header>
          <h2 id={titleId}>{props.title}</h2>
          <button type="button" className="link" aria-label="Close" onClick={props.onClose}>✕</button>
        </header>
        {props.children}
      </div>
    </div>
  );
}

/**
 * Asks before a deletion; the API's refusal (a 409 that says why) shows inside it. Once it is done,
 * `onDone` runs first (it may leave the deleted thing's page), and only then is what is on screen
 * read again: a page of the deleted thing would otherwise ask for it, and get a 404.
 */
export function ConfirmDialog(props: { title: string; confirm: string; children: ReactNode; onConfirm: () => Promise<unknown>; onClose: () => void; onDone: () => void }) {
  const client = useQueryClient();
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setError(null);
    setBusy(true);
    try {
      await props.onConfirm();
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'client_error', String(e)));
      setBusy(false);
      return;
    }
    props.onDone();
    window.setTimeout(() => void client.invalidateQueries(), 0);
  };
  return (
    <Modal title={props.title} onClose={props.onClose}>
      {props.children}
      <ErrorBox error={error} />
      <footer>
        <button type="button" onClick={props.onClose}>Cancel</button>
        <button type="button" className="primary danger" disabled={busy} onClick={() => void confirm()}>{props.confirm}</button>
      </footer>
    </Modal>
  );
}

export function Tabs<K extends string>(props: { tabs: Array<[K, string]>; active: K; onChange: (key: K) => void }) {
  return (
    <div className="tabs" role="tablist">
      {props.tabs.map(([key, label]) => (
        <button key={key} type="button" role="tab" aria-selected={props.active === key} className={props.active === key ? 'active' : ''} onClick={() => props.onChange(key)}>
          {label}
        </button>
      ))}
    </div>
  );
}

export function Json(props: { value: unknown; label?: string }) {
  return <pre className="json" aria-label={props.label}>{JSON.stringify(props.value, null, 2)}</pre>;
}

export function ErrorBox(props: { error: ApiError | Error | string | null | undefined }) {
  if (!props.error) return null;
  const message = typeof props.error === 'string' ? props.error : props.error.message;
  return <div className="error" role="alert">{message}</div>;
}

export function Loading(props: { what?: string }) {
  return <p className="muted">Loading{props.what ? ` ${props.what}` : ''}…</p>;
}

/** The API's validation message for one body field (its details name `body.<field>`, or a nested path ending in it). */
export function fieldError(error: ApiError | null | undefined, field: string): string | undefined {
  return error?.details.find((d) => d.path === `body.${field}` || d.path === field || d.path?.endsWith(`.${field}`))?.message;
}

/** A labelled form row with its validation message underneath. */
export function Field(props: { label: string; error?: string | undefined; hint?: string; children: ReactNode }) {
  return (
    <label className={`field${props.error ? ' invalid' : ''}`}>
      <span className="field-label">{props.label}</span>
      {props.children}
      {props.hint && !props.error ? <span className="hint">{props.hint}</span> : null}
      {props.error ? <span className="field-error">{props.error}</span> : null}
    </label>
  );
}

export function Empty(props: { children: ReactNode }) {
  return <p className="empty">{props.children}</p>;
}

/** One filter drop-down of a list page: "any" first, then the options; choosing one updates the URL. */
export function FilterSelect(props: {
  label: string;
  name: string;
  value: string;
  any: string;
  options: readonly (string | { value: string; label: string })[] | undefined;
  onChange: (value: string) => void;
}) {
  return (
    <label>{props.label}
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">{props.any}</option>
        {props.options?.map((option) => {
          const { value, label } = typeof option === 'string' ? { value: option, label: option } : option;
          return <option key={value} value={value}>{label}</option>;
        })}
      </select>
    </label>
  );
}
