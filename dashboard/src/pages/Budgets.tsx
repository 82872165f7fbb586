/** The Settings page's budgets: each one's spend this period as a bar against its limit and alert threshold. */
import { useState, type FormEvent } from 'react';
import { CreateBudgetBody, PatchBudgetBody } from '../../../src/domain/schemas.js';
import { call, office } from '../api';
import { query, useAction, useApi } from '../hooks';
import type { Agent, BudgetWithSpend } from '../types';
import { Badge, ConfirmDialog, Empty, ErrorBox, Field, fieldError, Loading } from '../ui';
import { validated } from '../validate';

const PERIOD_LABELS: Record<BudgetWithSpend['period'], string> = { daily: 'today', monthly: 'this month', total: 'in total' };

/** Where the bar ends and how it is coloured: past the limit red, past the threshold amber. */
export function budgetLevel(budget: Pick<BudgetWithSpend, 'spent_usd' | 'limit_usd' | 'alert_threshold_pct'>): { pct: number; tone: 'good' | 'warn' | 'bad' } {
  const pct = budget.limit_usd > 0 ? (budget.spent_usd / budget.limit_usd) * 100 : budget.spent_usd > 0 ? 100 : 0;
  const tone = pct >= 100 ? 'bad' : budget.alert_threshold_pct !== null && pct >= budget.alert_threshold_pct ? 'warn' : 'good';
  return { pct, tone };
}

const usd = (value: number) => `$${value.toFixed(2)}`;

export function BudgetsSection(props: { workspaceId: string }) {
  const budgets = useApi<BudgetWithSpend[]>(`/api/office/budgets${query({ workspace_id: props.workspaceId })}`);
  const agents = useApi<Agent[]>(`/api/office/agents${query({ workspace_id: props.workspaceId })}`);
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<BudgetWithSpend | null>(null);
  const scopeName = (b: BudgetWithSpend) =>
    b.scope === 'workspace' ? 'Workspace' : b.scope === 'agent' ? `Agent ${agents.data?.find((a) => a.id === b.scope_id)?.name ?? b.scope_id}` : `Project ${b.scope_id}`;
  return (
    <>
      <h2>Budgets</h2>
      <ErrorBox error={budgets.error} />
      {budgets.data === undefined ? <Loading what="budgets" /> : budgets.data.length === 0 ? <Empty>No budgets. Runs may spend without a limit.</Empty> : (
        <ul className="plain budgets" aria-label="Budgets">
          {budgets.data.map((b) => {
            const { pct, tone } = budgetLevel(b);
            return (
              <li key={b.id} data-budget-id={b.id} className="budget">
                <div className="row">
                  <strong>{scopeName(b)}</strong>
                  <span data-testid="budget-spend">{usd(b.spent_usd)} of {usd(b.limit_usd)} {PERIOD_LABELS[b.period]}</span>
                  <Badge tone={b.action_on_exceed === 'pause_agent' ? 'warn' : 'muted'}>{b.action_on_exceed === 'pause_agent' ? 'pauses at limit' : 'warns at limit'}</Badge>
                  <span className="row-actions">
                    <button type="button" className="link" onClick={() => setEditing(editing === b.id ? null : b.id)}>Edit</button>
                    <button type="button" className="link danger" onClick={() => setDeleting(b)}>Delete</button>
                  </span>
                </div>
                <div className="bar" role="meter" aria-label={`${scopeName(b)} spend`} aria-valuemin={0} aria-valuemax={b.limit_usd} aria-valuenow={b.spent_usd}>
                  <div className={`fill tone-${tone}`} style={{ width: `${Math.min(pct, 100)}%` }} />
                  {b.alert_threshold_pct !== null && (
                    <div className="threshold" style={{ left: `${b.alert_threshold_pct}%` }} title={`Alert at ${b.alert_threshold_pct}%`} data-testid="budget-threshold" />
                  )}
                </div>
                <span className="hint">{Math.round(pct)}% used{b.alert_threshold_pct !== null ? ` · alert at ${b.alert_threshold_pct}%` : ''}</span>
                {editing === b.id && <BudgetForm budget={b} onDone={() => setEditing(null)} />}
              </li>
            );
          })}
        </ul>
      )}
      <BudgetForm workspaceId={props.workspaceId} agents={agents.data ?? []} />
      {deleting && (
        <ConfirmDialog title={`Delete the ${scopeName(deleting)} budget?`} confirm="Delete budget" onClose={() => setDeleting(null)}
          onConfirm={() => call(office.DELETE('/api/office/budgets/{id}', { params: { path: { id: deleting.id } } }))} onDone={() => setDeleting(null)}>
          <p>Its limit of {usd(deleting.limit_usd)} {PERIOD_LABELS[deleting.period]} no longer applies. What runs spent stays counted.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** A new budget for the workspace or one of its agents (`workspaceId`), or new terms for a budget (`budget`). */
function BudgetForm(props: { workspaceId?: string; agents?: Agent[]; budget?: BudgetWithSpend; onDone?: () => void }) {
  const stored = props.budget;
  const [scopeId, setScopeId] = useState('');
  const [limit, setLimit] = useState(stored ? String(stored.limit_usd) : '');
  const [period, setPeriod] = useState<BudgetWithSpend['period']>(stored?.period ?? 'monthly');
  const [onExceed, setOnExceed] = useState<BudgetWithSpend['action_on_exceed']>(stored?.action_on_exceed ?? 'warn');
  const [threshold, setThreshold] = useState(stored ? (stored.alert_threshold_pct === null ? '' : String(stored.alert_threshold_pct)) : '80');
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const terms = {
      limit_usd: limit.trim() === '' ? NaN : Number(limit), period, action_on_exceed: onExceed,
      alert_threshold_pct: threshold.trim() === '' ? null : Number(threshold),
    };
    const saved = await action.run(() => (stored
      ? call(office.PATCH('/api/office/budgets/{id}', { params: { path: { id: stored.id } }, body: validated(PatchBudgetBody, terms) }))
      : call(office.POST('/api/office/budgets', { body: validated(CreateBudgetBody, { scope: scopeId ? 'agent' : 'workspace', scope_id: scopeId || props.workspaceId, ...terms }) }))));
    if (!saved) return;
    if (stored) props.onDone?.();
    else setLimit('');
  };
  const errorOf = (field: string) => fieldError(action.error, field);
  const shown = ['limit_usd', 'alert_threshold_pct'].some((field) => errorOf(field));
  return (
    <form className="card narrow" onSubmit={submit} noValidate aria-label={stored ? 'Change the budget' : 'Add a budget'}>
      {!stored && (
        <Field label="Applies to">
          <select name="budget_scope" value={scopeId} onChange={(e) => setScopeId(e.target.value)}>
            <option value="">The whole workspace</option>
            {props.agents?.map((a) => <option key={a.id} value={a.id}>Agent {a.name}</option>)}
          </select>
        </Field>
      )}
      <Field label="Limit (USD)" error={errorOf('limit_usd')}><input name="limit_usd" type="number" min={0} step="0.01" value={limit} onChange={(e) => setLimit(e.target.value)} /></Field>
      <Field label="Period">
        <select name="period" value={period} onChange={(e) => setPeriod(e.target.value as BudgetWithSpend['period'])}>
          <option value="daily">Daily</option><option value="monthly">Monthly</option><option value="total">Total</option>
        </select>
      </Field>
      <Field label="At the limit">
        <select name="action_on_exceed" value={onExceed} onChange={(e) => setOnExceed(e.target.value as BudgetWithSpend['action_on_exceed'])}>
          <option value="warn">Warn</option><option value="pause_agent">Pause the agent</option>
        </select>
      </Field>
      <Field label="Alert threshold (%)" error={errorOf('alert_threshold_pct')} hint="Empty: no alert before the limit.">
        <input name="alert_threshold_pct" type="number" min={1} max={100} value={threshold} onChange={(e) => setThreshold(e.target.value)} />
      </Field>
      <ErrorBox error={shown ? null : action.error} />
      <footer>
        {stored && <button type="button" onClick={props.onDone}>Cancel</button>}
        <button type="submit" className={stored ? 'primary' : undefined} disabled={action.busy || limit.trim() === ''}>{stored ? 'Update budget' : 'Add budget'}</button>
      </footer>
    </form>
  );
}
