/** Small shared pieces: badges, modals, tabs, JSON blocks, field rows. */
import { useEffect, useId, type ReactNode } from 'react';
import type { ApiError } from './api';
import { formatTime, relativeTime, statusTone, type Tone } from './format';
import { useNow } from './hooks';

export function Badge(props: { tone?: Tone; children: ReactNode; title?: string }) {
  return <span className={`badge tone-${props.tone ?? 'neutral'}`} title={props.title}>{props.children}</span>;
}

export function StatusBadge(props: { status: string }) {
  return <Badge tone={statusTone(props.status)}>{props.status.replaceAll('_', ' ')}</Badge>;
}

export function Time(props: { at: string | null | undefined }) {
  const now = useNow();
  if (!props.at) return <span className="muted">-</span>;
  return <time dateTime={props.at} title={formatTime(props.at)}>{relativeTime(props.at, now)}</time>;
}

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
