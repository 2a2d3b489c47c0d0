import { describe, expect, it } from 'vitest';
import { WorkflowList } from '../../lib/schemas';
import { readWorkflowList } from '../../lib/workflow-list-read';

/** The hand-checked fast path reads every page exactly as the schema does. */
const workflow = (i: number) => ({
  id: `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`,
  name: `Workflow ${i}`,
  description: 'generated',
  status: 'active',
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-02T00:00:00Z',
  version: 3,
  extra: { kept: true },
});

const zodResult = (body: unknown) => {
  try {
    return { ok: WorkflowList.parse(body ?? {}) };
  } catch (error) {
    return { error: (error as Error).message };
  }
};
const fastResult = (body: unknown) => {
  try {
    return { ok: readWorkflowList(body) };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

describe('readWorkflowList', () => {
  it.each([
    ['a full page with a token', { workflows: [workflow(1), workflow(2)], next_page_token: 'next' }],
    ['the last page (null token)', { workflows: [workflow(3)], next_page_token: null }],
    ['a page without a token and with fields the schema does not know', { workflows: [workflow(4)], total: 9 }],
    ['an empty page', { workflows: [] }],
    ['workflows missing', {}],
    ['workflows null', { workflows: null }],
    ['a body of null', null],
    ['a name wrapped in a one-element list', { workflows: [{ ...workflow(5), name: ['Wrapped'] }] }],
    ['a status wrapped in a one-element list', { workflows: [{ ...workflow(6), status: ['idle'] }] }],
    ['an id that is a number', { workflows: [{ ...workflow(7), id: 7 }] }],
    ['a workflow without an id', { workflows: [{ name: 'no id' }] }],
    ['a token that is a number', { workflows: [workflow(8)], next_page_token: 8 }],
    ['workflows not a list', { workflows: 'none' }],
    ['a list for a body', [workflow(9)]],
  ])('%s: the same result or the same error as WorkflowList.parse', (_name, body) => {
    expect(fastResult(structuredClone(body))).toEqual(zodResult(structuredClone(body)));
  });
});
