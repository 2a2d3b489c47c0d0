import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import {
  FINAL_PHASES,
  IllegalSlotTransition,
  illegalTransition,
  isFinalPhase,
  nextPhase,
  SLOT_PHASES,
  SLOT_TRANSITIONS,
  slotStateDiagram,
} from '../../../lib/schedule/slot-machine';
import { outcomeOf, SLOT_OUTCOMES } from '../../../lib/schedule/slot-outcome';
import { FINAL_STAGES, STAGE_OF_PHASE } from '../../../nodes/sidebar/activity-types';

describe('the slot transition table', () => {
  it('has one row per phase and event (a table, not a list of wishes)', () => {
    const keys = SLOT_TRANSITIONS.map((r) => `${r.from} ${r.event}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('defines final once: the phases no row leaves, and every final phase has an outcome word', () => {
    expect(FINAL_PHASES).toEqual(['finished', 'partial', 'missed', 'skipped', 'cancelled']);
    for (const p of SLOT_PHASES) expect(isFinalPhase(p)).toBe(!SLOT_TRANSITIONS.some((r) => r.from === p));
    for (const p of FINAL_PHASES) expect(SLOT_OUTCOMES).toContain(outcomeOf({ to: p }));
    expect(outcomeOf({ to: 'finished', overrun: { by: 15 } })).toBe('overran');
    for (const p of SLOT_PHASES.filter((x) => !isFinalPhase(x))) expect(outcomeOf({ to: p })).toBeUndefined();
    // the sidebar's final stages are those of the final phases, not a list of its own
    expect([...FINAL_STAGES].sort()).toEqual([...new Set(FINAL_PHASES.map((p) => STAGE_OF_PHASE[p]))].sort());
  });

  it('reaches every phase from planned, and a final phase from every phase', () => {
    const reached = new Set(['planned']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const r of SLOT_TRANSITIONS)
        if (reached.has(r.from) && !reached.has(r.to)) {
          reached.add(r.to);
          grew = true;
        }
    }
    expect([...reached].sort()).toEqual([...SLOT_PHASES].sort());
    for (const p of SLOT_PHASES) {
      if (isFinalPhase(p)) continue;
      expect(SLOT_TRANSITIONS.some((r) => r.from === p && isFinalPhase(r.to))).toBe(true);
    }
  });

  it('walks a slot through its life: start, records late, interrupted, records again, stops, follow-up', () => {
    const walk = ['emitted', 'began', 'lost', 'began', 'end', 'stop-accepted', 'recorded-with-gaps'] as const;
    let phase = 'planned' as (typeof SLOT_PHASES)[number];
    const seen: string[] = [phase];
    for (const event of walk) {
      const rule = nextPhase(phase, event);
      expect(rule, `${event} in ${phase}`).toBeDefined();
      phase = rule?.to ?? phase;
      seen.push(phase);
    }
    expect(seen).toEqual([
      'planned',
      'starting',
      'recording',
      'interrupted',
      'recording',
      'stopping',
      'finishing',
      'partial',
    ]);
  });

  it('has no row for what makes no sense: recording before a start, anything after a final phase', () => {
    expect(nextPhase('planned', 'began')).toBeUndefined();
    expect(nextPhase('planned', 'recorded')).toBeUndefined();
    expect(nextPhase('finishing', 'end')).toBeUndefined();
    for (const p of FINAL_PHASES) for (const r of SLOT_TRANSITIONS) expect(nextPhase(p, r.event)).toBeUndefined();
  });

  it('tells only what happened here: a slot restored or adopted after a restart tells nothing again', () => {
    for (const r of SLOT_TRANSITIONS.filter((x) => x.event.startsWith('restored') || x.event.startsWith('adopted')))
      expect(r.effects).not.toContain('tell');
    expect(nextPhase('stopping', 'replayed')?.effects).not.toContain('tell');
    for (const r of SLOT_TRANSITIONS.filter((x) => isFinalPhase(x.to))) expect(r.effects).toContain('settle');
  });

  it('throws on an illegal transition under test, and warns once per phase and event otherwise', () => {
    const error = new IllegalSlotTransition('s1', 'finished', 'began');
    expect(() => illegalTransition(error, () => {}, true)).toThrow(/"began" has no meaning in phase finished/);
    const warn = vi.fn();
    illegalTransition(error, warn, false);
    illegalTransition(new IllegalSlotTransition('s2', 'finished', 'began'), warn, false);
    illegalTransition(new IllegalSlotTransition('s3', 'missed', 'began'), warn, false);
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('is the diagram docs/slot-states.md shows', () => {
    const doc = readFileSync(new URL('../../../docs/slot-states.md', import.meta.url), 'utf8');
    const block = /```mermaid\n([\s\S]*?)\n```/.exec(doc)?.[1];
    expect(block, 'docs/slot-states.md is out of date: run `npm run build && node scripts/slot-states.mjs`').toBe(
      slotStateDiagram(),
    );
  });
});
