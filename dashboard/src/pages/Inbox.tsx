/** What waits for a person: approvals to decide; agent errors, setup errors, pauses and exhausted quotas to look at. */
import { useState } from 'react';
import { call, office } from '../api';
import { inboxKindBadge } from '../format';
import { query, useAction, useApi } from '../hooks';
import { Link } from '../router';
import type { Agent, Approval, InboxItem } from '../types';
import { ApiSentence, Badge, Empty, ErrorBox, Loading, Time } from '../ui';
import { useWorkspace } from '../workspace';

/** The workspace's open or resolved items: asked for apart, so that resolved ones never crowd an open one out. */
export function inboxPath(workspaceId: string | undefined, status: InboxItem['status']): string | null {
  return workspaceId ? `/api/office/inbox${query({ workspace_id: workspaceId, status })}` : null;
}

/** The open items of the workspace, for the counter in the navigation. */
export function useOpenInboxCount(): number | undefined {
  const { workspace } = useWorkspace();
  return useApi<InboxItem[]>(inboxPath(workspace?.id, 'open')).data?.length;
}

export function InboxPage() {
  const { workspace } = useWorkspace();
  const openItems = useApi<InboxItem[]>(inboxPath(workspace?.id, 'open'));
  const resolvedItems = useApi<InboxItem[]>(inboxPath(workspace?.id, 'resolved'));
  const agents = useApi<Agent[]>(workspace ? `/api/office/agents${query({ workspace_id: workspace.id })}` : null);
  if (!workspace) return <Loading what="workspace" />;
  const agentName = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id;
  const open = openItems.data ?? [];
  const resolved = resolvedItems.data ?? [];
  return (
    <section>
      <header className="page-head"><h1>Inbox</h1></header>
      <ErrorBox error={openItems.error ?? resolvedItems.error} />
      {openItems.data === undefined ? <Loading what="inbox" /> : open.length === 0 ? <Empty>Nothing waits for you.</Empty> : (
        <ul className="plain inbox" aria-label="Open items">
          {open.map((item) => <InboxRow key={item.id} item={item} agentName={agentName} />)}
        </ul>
      )}
      {resolved.length > 0 && (
        <details>
          <summary>Resolved ({resolved.length})</summary>
          <ul className="plain inbox" aria-label="Resolved items">
            {resolved.map((item) => <InboxRow key={item.id} item={item} agentName={agentName} />)}
          </ul>
        </details>
      )}
    </section>
  );
}

function KindBadge(props: { kind: string }) {
  const badge = inboxKindBadge(props.kind);
  return <Badge tone={badge.tone}>{badge.label}</Badge>;
}

/** What an item's `ref_id` names, where it has a page: the run that failed, the routine that paused, the quotas. */
function RefLink(props: { item: InboxItem }) {
  const { kind, ref_id: ref } = props.item;
  if (!ref) return null;
  if (kind === 'agent.error') return <Link to={`/office/runs/${ref}`}>failed run</Link>;
  if (kind === 'agent.setup_error') return <Link to={`/office/runs/${ref}`}>the run that could not start</Link>;
  if (kind === 'routine.paused') return <Link to={`/office/routines/${ref}`}>routine</Link>;
  if (kind === 'quota.exhausted') return <Link to="/office/quotas">quotas</Link>;
  return null;
}

function InboxRow(props: { item: InboxItem; agentName: (id: string) => string }) {
  const { item } = props;
  return (
    <li className="inbox-item" data-inbox-id={item.id} data-kind={item.kind} data-status={item.status}>
      <div className="row">
        <KindBadge kind={item.kind} />
        <strong><ApiSentence text={item.title} /></strong>
        <Time at={item.created_at} />
      </div>
      <div className="links">
        {item.agent_id && <Link to={`/office/agents/${item.agent_id}`}>{props.agentName(item.agent_id)}</Link>}
        {item.task_id && <Link to={`/office/tasks/${item.task_id}`}>task</Link>}
        <RefLink item={item} />
      </div>
      {item.body && <pre className="prose"><ApiSentence text={item.body} /></pre>}
      {item.kind === 'approval' && item.ref_id && item.status === 'open' && <Decision approvalId={item.ref_id} title={item.title} />}
      {item.kind !== 'approval' && item.status === 'open' && <MarkResolved itemId={item.id} />}
    </li>
  );
}

/** Approve or reject, with a note the requesting agent reads when it wakes. */
function Decision(props: { approvalId: string; title: string }) {
  const [note, setNote] = useState('');
  const action = useAction();
  const resolve = (status: Exclude<Approval['status'], 'pending'>) => void action.run(() =>
    call(office.POST('/api/office/approvals/{id}/resolve', { params: { path: { id: props.approvalId } }, body: { status, ...(note.trim() ? { decision_note: note.trim() } : {}) } })));
  return (
    <div className="decision">
      <input name="decision_note" aria-label={`Note on ${props.title}`} placeholder="Note (optional)" value={note} onChange={(e) => setNote(e.target.value)} />
      <button type="button" className="primary" disabled={action.busy} onClick={() => resolve('approved')}>Approve</button>
      <button type="button" className="danger" disabled={action.busy} onClick={() => resolve('rejected')}>Reject</button>
      <ErrorBox error={action.error} />
    </div>
  );
}

/** An error someone has looked at leaves the open items (and the counter); the activity feed says who. */
function MarkResolved(props: { itemId: string }) {
  const action = useAction();
  return (
    <div className="decision">
      <button type="button" disabled={action.busy} onClick={() => void action.run(() => call(office.POST('/api/office/inbox/{id}/resolve', { params: { path: { id: props.itemId } } })))}>Mark resolved</button>
      <ErrorBox error={action.error} />
    </div>
  );
}
