import { describe, expect, it } from 'vitest';
import { parseScheduleObject } from '../../../lib/schedule/config';
import { RECORDING_MEDIA } from '../../../lib/schedule/followup-media';
import { renderTemplates } from '../../../lib/schedule/template';
import { recordingOutputs } from '../../../lib/simulator/channels';
import type { ChannelRecord } from '../../../lib/simulator/state';

/**
 * The recording's outputs a follow-up's media input offers by name: each a template the schedule
 * document accepts, resolving to the file the simulator's finished recording holds, and offered only
 * for a channel that has it.
 */

const WORKFLOW = '0b6a3c1e-7d2f-4e8a-9c1b-2d3e4f5a6b7c';
const byId = (id: string) => {
  const media = RECORDING_MEDIA.find((m) => m.id === id);
  if (!media) throw new Error(`no ${id}`);
  return media;
};

/** A stopped recording of the simulator, as the follow-up's `channel` carries it. */
function finishedChannel(continuous: boolean) {
  const record: ChannelRecord = {
    id: '7a1b2c3d-0000-4000-8000-000000000001',
    spaceId: '11111111-1111-4111-8111-111111111111',
    name: 'Evening news',
    description: '',
    sourceId: null,
    expectedProperties: null,
    continuousRecording: continuous,
    failure: null,
    recordingDurationHours: null,
    region: '',
    tags: [],
    createdAt: 0,
    recordingAfterMs: 2000,
    recordingId: '9f8e7d6c-0000-4000-8000-000000000002',
    stoppedAt: 3 * 3600_000,
  };
  return { id: record.id, state: 'INACTIVE', recording: { outputs: recordingOutputs(record, 4 * 3600_000) } };
}

describe('the recording outputs a follow-up offers', () => {
  it('each is a template the schedule document accepts in a media input', () => {
    for (const media of RECORDING_MEDIA) {
      const parsed = parseScheduleObject({
        windows: [
          {
            id: 'w',
            cron: '0 18 * * *',
            duration: '1h',
            followup: { workflow_id: WORKFLOW, media_nicknames: { source: media.template } },
          },
        ],
      });
      expect(parsed.ok, media.id).toBe(true);
    }
  });

  it('"the recording" is the recorded file and "its proxy" the proxy, of a recording that is not continuous', () => {
    const channel = finishedChannel(false);
    const unresolved = new Set<string>();
    const rendered = renderTemplates(
      { recording: byId('recording').template, proxy: byId('proxy').template },
      { channel },
      unresolved,
    );
    expect(unresolved.size).toBe(0);
    expect(rendered.recording).toMatch(/\/9f8e7d6c-0000-4000-8000-000000000002\.mxf$/);
    expect(rendered.proxy).toMatch(/_proxy\.mp4$/);
  });

  it('a continuous recording has segments and no proxy: the proxy is not offered', () => {
    expect(byId('proxy').offered({})).toBe(true);
    expect(byId('proxy').offered({ continuous_recording: false })).toBe(true);
    expect(byId('proxy').offered({ continuous_recording: true })).toBe(false);
    expect(byId('recording').offered({ continuous_recording: true })).toBe(true);
    // the recording of a continuous channel: the oldest segment still kept (3 hours recorded, the last hour kept: it reaches into the second segment)
    const rendered = renderTemplates(byId('recording').template, { channel: finishedChannel(true) });
    expect(rendered).toMatch(/_00002\.mxf$/);
  });
});
