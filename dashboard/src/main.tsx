import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createQueryClient, useLiveRefresh } from './hooks';
import { LiveProvider, useLive } from './live';
import { AgentDetailPage, AgentsPage } from './pages/Agents';
import { QuotasPage } from './pages/Quotas';
import { ReplicasPage } from './pages/Replicas';
import { RoutineDetailPage } from './pages/RoutineDetail';
import { RoutinesPage } from './pages/Routines';
import { RunDetailPage, RunsPage } from './pages/Runs';
import { SettingsPage } from './pages/Settings';
import { ActivityPage } from './pages/Activity';
import { InboxPage, useOpenInboxCount } from './pages/Inbox';
import { TaskPage } from './pages/Task';
import { TasksPage } from './pages/Tasks';
import { AddFirstAgent, CreateWorkspace, NewWorkspaceDialog } from './pages/Welcome';
import { WakeupsPage } from './pages/Wakeups';
import { Link, Redirect, Route, Switch, useLocation } from './router';
import { SignInGate, SignOutButton } from './signin';
import { useWorkspace, WorkspaceProvider } from './workspace';
import './styles.css';
import './board.css';

const NAV: Array<[string, string]> = [
  ['/office/tasks', 'Tasks'],
  ['/office/routines', 'Routines'],
  ['/office/wakeups', 'Wakeups'],
  ['/office/runs', 'Runs'],
  ['/office/agents', 'Agents'],
  ['/office/quotas', 'Quotas'],
  ['/office/replicas', 'Replicas'],
  ['/office/inbox', 'Inbox'],
  ['/office/activity', 'Activity'],
  ['/office/settings', 'Settings'],
];

/** The workspace menu's last entry, which opens the "New workspace" dialog instead of choosing one. */
const NEW_WORKSPACE = '__new';

/** Pages that list a workspace's things; with no workspace yet they give way to the empty state. */
function WorkspacePages() {
  const { workspaces } = useWorkspace();
  if (workspaces && workspaces.length === 0) return <CreateWorkspace />;
  return (
    <Switch>
      <Route path="/office/tasks" component={TasksPage} />
      <Route path="/office/inbox" component={InboxPage} />
      <Route path="/office/activity" component={ActivityPage} />
      <Route path="/office/routines" component={RoutinesPage} />
      <Route path="/office/wakeups" component={WakeupsPage} />
      <Route path="/office/runs" component={RunsPage} />
      <Route path="/office/agents" component={AgentsPage} />
      <Route path="/office/quotas" component={QuotasPage} />
      <Route path="/office/replicas" component={ReplicasPage} />
      <Route path="/office/settings" component={SettingsPage} />
      <Route><section><h1>No page here</h1><p>Nothing lives at this address. <Link to="/office/tasks">Go to the tasks</Link>.</p></section></Route>
    </Switch>
  );
}

/**
 * Every page, under the first agent's form and its next steps: those stay above whichever page a
 * step opens (the run of the first task), until they are dismissed.
 */
function Page() {
  const { workspace } = useWorkspace();
  return (
    <>
      {workspace && <AddFirstAgent key={workspace.id} workspace={workspace} />}
      <Switch>
        <Route path="/"><Redirect to="/office/tasks" replace /></Route>
        <Route path="/office"><Redirect to="/office/tasks" replace /></Route>
        <Route path="/office/routines/:id">{(params) => <RoutineDetailPage id={params.id} />}</Route>
        <Route path="/office/runs/:id">{(params) => <RunDetailPage id={params.id} />}</Route>
        <Route path="/office/agents/:id">{(params) => <AgentDetailPage id={params.id} />}</Route>
        <Route path="/office/tasks/:id">{(params) => <TaskPage id={params.id} />}</Route>
        <Route><WorkspacePages /></Route>
      </Switch>
    </>
  );
}

function Shell() {
  useLiveRefresh();
  const { pathname } = useLocation();
  const { connected } = useLive();
  const { workspaces, workspace, select } = useWorkspace();
  const openInbox = useOpenInboxCount();
  const [creatingWorkspace, setCreatingWorkspace] = useState(false);
  return (
    <>
      <header className="top">
        <Link to="/office/tasks" className="brand">Office Scheduler</Link>
        <nav>
          {NAV.map(([to, label]) => (
            <Link key={to} to={to} className={pathname.startsWith(to) ? 'active' : ''}>
              {label}{to === '/office/inbox' && openInbox ? <span className="nav-count" data-testid="inbox-count">{openInbox}</span> : null}
            </Link>
          ))}
        </nav>
        <div className="top-right">
          {workspaces && workspaces.length > 0 && (
            <select aria-label="Workspace" value={workspace?.id ?? ''}
              onChange={(e) => (e.target.value === NEW_WORKSPACE ? setCreatingWorkspace(true) : select(e.target.value))}>
              {workspaces.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
              <option value={NEW_WORKSPACE}>New workspace…</option>
            </select>
          )}
          <span className={`live ${connected ? 'on' : 'off'}`} data-testid="live-indicator" title={connected ? 'Live updates on' : 'Reconnecting to the live stream…'}>
            {connected ? 'live' : 'offline'}
          </span>
          <SignOutButton />
        </div>
      </header>
      <main><Page /></main>
      {creatingWorkspace && <NewWorkspaceDialog onClose={() => setCreatingWorkspace(false)} />}
    </>
  );
}

const queryClient = createQueryClient();

function App() {
  return (
    <SignInGate>
      <LiveProvider>
        <WorkspaceProvider>
          <Shell />
        </WorkspaceProvider>
      </LiveProvider>
    </SignInGate>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode><QueryClientProvider client={queryClient}><App /></QueryClientProvider></StrictMode>,
);
