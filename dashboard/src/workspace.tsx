/**
 * The workspace the pages show: chosen in the header, remembered in localStorage. A link may name
 * one (`?workspace=<id>`, as `npm run demo` prints), which then becomes the remembered choice.
 */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useApi } from './hooks';
import type { Workspace } from './types';

const KEY = 'office-scheduler.workspace';
const LINK_PARAM = 'workspace';

interface WorkspaceState {
  workspaces: Workspace[] | undefined;
  workspace: Workspace | null;
  select: (id: string) => void;
  reload: () => void;
}

const WorkspaceContext = createContext<WorkspaceState>({ workspaces: undefined, workspace: null, select: () => {}, reload: () => {} });

export function WorkspaceProvider(props: { children: ReactNode }) {
  const { data: workspaces, reload } = useApi<Workspace[]>('/api/office/workspaces');
  const [selected, setSelected] = useState<string | null>(() => takeLinked() ?? readStored());

  useEffect(() => {
    if (!workspaces?.length) return;
    if (!selected || !workspaces.some((w) => w.id === selected)) setSelected(workspaces[0]!.id);
  }, [workspaces, selected]);

  const select = (id: string) => {
    setSelected(id);
    remember(id);
  };
  const workspace = workspaces?.find((w) => w.id === selected) ?? null;
  return <WorkspaceContext.Provider value={{ workspaces, workspace, select, reload }}>{props.children}</WorkspaceContext.Provider>;
}

export function useWorkspace(): WorkspaceState {
  return useContext(WorkspaceContext);
}

/** The workspace a link names, remembered, and taken out of the address bar (the choice now lives in the header). */
function takeLinked(): string | null {
  const url = new URL(window.location.href);
  const linked = url.searchParams.get(LINK_PARAM);
  if (!linked) return null;
  remember(linked);
  url.searchParams.delete(LINK_PARAM);
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  return linked;
}

function remember(id: string): void {
  try {
    window.localStorage.setItem(KEY, id);
  } catch {
    // Not remembered; still selected for this page.
  }
}

function readStored(): string | null {
  try {
    return window.localStorage.getItem(KEY);
  } catch {
    return null;
  }
}
