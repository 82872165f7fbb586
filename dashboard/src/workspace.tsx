/** The workspace the pages show: chosen in the header, remembered in localStorage. */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useApi } from './hooks';
import type { Workspace } from './types';

const KEY = 'office-scheduler.workspace';

interface WorkspaceState {
  workspaces: Workspace[] | undefined;
  workspace: Workspace | null;
  select: (id: string) => void;
  reload: () => void;
}

const WorkspaceContext = createContext<WorkspaceState>({ workspaces: undefined, workspace: null, select: () => {}, reload: () => {} });

export function WorkspaceProvider(props: { children: ReactNode }) {
  const { data: workspaces, reload } = useApi<Workspace[]>('/api/office/workspaces');
  const [selected, setSelected] = useState<string | null>(() => readStored());

  useEffect(() => {
    if (!workspaces?.length) return;
    if (!selected || !workspaces.some((w) => w.id === selected)) setSelected(workspaces[0]!.id);
  }, [workspaces, selected]);

  const select = (id: string) => {
    setSelected(id);
    try {
      window.localStorage.setItem(KEY, id);
    } catch {
      // Not remembered; still selected for this page.
    }
  };
  const workspace = workspaces?.find((w) => w.id === selected) ?? null;
  return <WorkspaceContext.Provider value={{ workspaces, workspace, select, reload }}>{props.children}</WorkspaceContext.Provider>;
}

export function useWorkspace(): WorkspaceState {
  return useContext(WorkspaceContext);
}

function readStored(): string | null {
  try {
    return window.localStorage.getItem(KEY);
  } catch {
    return null;
  }
}
