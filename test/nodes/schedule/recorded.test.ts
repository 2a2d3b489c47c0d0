import { describe, expect, it } from 'vitest';
import { recordedVerdict } from '../../../nodes/schedule/recorded';

/** Whether a slot recorded anything: one decision, with or without coordination. */
describe('recordedVerdict', () => {
  const none = { heard: false, routesChannels: false };

  it('any channel with an id is a recording, the interrupted ones first, in order', () => {
    expect(recordedVerdict({ ...none, channel: { id: 'b' }, earlier: [{ id: 'a' }, { id: '' }] })).toEqual({
      kind: 'recorded',
      segments: [{ id: 'a' }, { id: 'b' }],
    });
    // a channel that recorded wins over a start failure Redis holds (a replacement recorded after it)
    expect(
      recordedVerdict({ ...none, channel: { id: 'c' }, coordinated: { started: true, failed: 'HTTP 503' } }).kind,
    ).toBe('recorded');
  });

  it('without a channel: the start failure, then what the instances know, then the wiring', () => {
    expect(
      recordedVerdict({ ...none, coordinated: { started: true, failed: 'Create channel failed: HTTP 503' } }),
    ).toEqual({
      kind: 'missed',
      why: 'start_failed',
      reason: 'Create channel failed: HTTP 503',
    });
    expect(recordedVerdict({ ...none, coordinated: { started: false } })).toMatchObject({
      kind: 'missed',
      why: 'not_started',
    });
    expect(recordedVerdict({ ...none, startFailure: { message: 'HTTP 503', attempts: 15 } })).toEqual({
      kind: 'missed',
      why: 'start_failed',
      reason: 'the channel could not be created (HTTP 503; 15 attempts)',
    });
    expect(recordedVerdict({ heard: false, routesChannels: true })).toEqual({
      kind: 'missed',
      why: 'not_started',
      reason: 'no channel came back for this window',
    });
    // a flow whose start output goes elsewhere: nothing says whether it recorded
    expect(recordedVerdict(none)).toEqual({ kind: 'unknown' });
  });
});
