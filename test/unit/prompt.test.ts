/**
 * The prompt tells an agent how to act on the office (API.md, "Run token"): the API and its token,
 * the paths for its own task and its own wake, and the actions a result line may carry. A resumed
 * session was told in its first run and gets only what is new.
 */
import { describe, expect, it } from 'vitest';
import { assemblePrompt, type PromptInput } from '../../src/domain/prompt.js';

const input: PromptInput = {
  agentName: 'Builder', agentId: 'agt_builder', source: 'task_assigned', reason: 'task assigned', payload: {},
  wakes: [], task: { id: 'tsk_1', title: 'Ship it', description: 'BRIEF', state: 'TODO' },
  comments: [], summary: null, resumeSince: null, missedTicks: null,
};

describe('assemblePrompt', () => {
  it('a full prompt says how to act: the API and its token, comment and move on its own task, wake itself, the result line\'s actions', () => {
    const { prompt } = assemblePrompt(input);
    expect(prompt).toContain('# Acting on the office');
    expect(prompt).toContain('$OFFICE_API_URL');
    expect(prompt).toContain('Authorization: Bearer $OFFICE_RUN_TOKEN');
    expect(prompt).toContain('POST /api/office/tasks/tsk_1/comments');
    expect(prompt).toContain('POST /api/office/tasks/tsk_1/move');
    expect(prompt).toContain('POST /api/office/agents/agt_builder/wake');
    expect(prompt).toContain('"type": "self_wake"');
  });

  it('a resume delta does not repeat it', () => {
    expect(assemblePrompt({ ...input, resumeSince: Date.UTC(2026, 0, 1) }).prompt).not.toContain('# Acting on the office');
  });
});
