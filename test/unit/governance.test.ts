import { describe, expect, it } from 'vitest';
import {
  BOOTSTRAP_ADMIN, REVOKED_OWNER_PAUSE_REASON, mayManageRoutine, mayManageTokens, mayReassignOwner, ownerForNewRoutine, ownerHandOver,
  type Principal,
} from '../../src/domain/governance.js';

const member = (tokenId: string): Principal => ({ kind: 'user', tokenId, role: 'member' });
const agent: Principal = { kind: 'agent', agentId: 'agt_1', workspaceId: 'ws_1', runId: 'run_1' };
const routine = { id: 'rtn_1', owner_id: 'tok_a', status: 'active', paused_reason: null as string | null };

describe('governance rules', () => {
  it('only an admin manages tokens', () => {
    expect(mayManageTokens(BOOTSTRAP_ADMIN)).toEqual({ allowed: true });
    expect(mayManageTokens(member('tok_a'))).toMatchObject({ allowed: false, reason: expect.stringContaining('only an admin') });
    expect(mayManageTokens(agent)).toMatchObject({ allowed: false });
  });

  it('a member manages its own routines only; an admin every one', () => {
    expect(mayManageRoutine(member('tok_a'), routine)).toEqual({ allowed: true });
    expect(mayManageRoutine(member('tok_b'), routine)).toMatchObject({ allowed: false, reason: expect.stringContaining('owned by tok_a') });
    expect(mayManageRoutine(BOOTSTRAP_ADMIN, routine)).toEqual({ allowed: true });
  });

  it('a new routine is owned by the credential; only an admin names another owner', () => {
    expect(ownerForNewRoutine(member('tok_a'), undefined)).toEqual({ owner: 'tok_a' });
    expect(ownerForNewRoutine(member('tok_a'), 'tok_a')).toEqual({ owner: 'tok_a' });
    expect(ownerForNewRoutine(member('tok_a'), 'admin')).toMatchObject({ refused: expect.stringContaining("owner_id 'admin'") });
    expect(ownerForNewRoutine(BOOTSTRAP_ADMIN, 'tok_z')).toEqual({ owner: 'tok_z' });
    expect(ownerForNewRoutine(BOOTSTRAP_ADMIN, undefined)).toEqual({ owner: 'admin' });
    expect(ownerForNewRoutine(agent, undefined)).toHaveProperty('refused');
  });

  it('only an admin gives a routine another owner', () => {
    expect(mayReassignOwner(member('tok_a'), routine, 'tok_a')).toEqual({ allowed: true });
    expect(mayReassignOwner(member('tok_a'), routine, 'tok_b')).toMatchObject({ allowed: false });
    expect(mayReassignOwner(BOOTSTRAP_ADMIN, routine, 'tok_b')).toEqual({ allowed: true });
  });

  it('a new owner resumes a routine paused by its owner\'s revocation, unless the patch sets status; a revoked owner blocks resuming', () => {
    const revokedPause = { ...routine, status: 'paused', paused_reason: REVOKED_OWNER_PAUSE_REASON };
    const live = { current: true, requested: false };
    expect(ownerHandOver(revokedPause, { owner_id: 'tok_b' }, live)).toEqual({ resume: true });
    expect(ownerHandOver(revokedPause, { owner_id: 'tok_b', status: 'paused' }, live)).toEqual({ resume: false });
    expect(ownerHandOver({ ...routine, status: 'paused', paused_reason: 'paused by a person' }, { owner_id: 'tok_b' }, live)).toEqual({ resume: false });
    expect(ownerHandOver(revokedPause, { status: 'active' }, live)).toHaveProperty('refused');
    expect(ownerHandOver(revokedPause, { owner_id: 'tok_c' }, { current: true, requested: true })).toHaveProperty('refused');
    expect(ownerHandOver(routine, { name: 'x' } as never, { current: false, requested: false })).toEqual({ resume: false });
  });
});
