import { describe, expect, it } from 'vitest';
import { CHANNEL_FIELDS, channelFieldsFromText } from '../../../lib/channel-fields';
import { INPUT_KINDS } from '../../../lib/rules';
import { parseScheduleObject } from '../../../lib/schedule/config';
import { ChannelCreateRequest, SubmitJobRequest } from '../../../lib/schemas';
import { CreateChannelSettings } from '../../../nodes/create-channel/settings';

/**
 * The create request's fields and a job's input kinds are each written once:
 * a window's channel template, the create-channel node's settings and a
 * follow-up all follow the library's list.
 */

/** A value of each request field as the dialog or a window's YAML writes it. */
const TEXT: Record<string, { setting: string; text: unknown }> = {
  name: { setting: 'channelName', text: 'Studio 1' },
  description: { setting: 'description', text: 'Evening news' },
  source_id: { setting: 'sourceId', text: '11111111-1111-4111-8111-111111111111' },
  expected_properties: { setting: 'expectedProperties', text: '{"video":"1080p"}' },
  continuous_recording: { setting: 'continuousRecording', text: 'false' },
  recording_duration: { setting: 'recordingDuration', text: '4' },
  region: { setting: 'region', text: 'eu-west' },
  tags: { setting: 'tags', text: 'news, studio' },
};

describe('the create request fields, written once', () => {
  it('are the request schema’s keys', () => {
    expect([...CHANNEL_FIELDS].sort()).toEqual(Object.keys(ChannelCreateRequest.shape).sort());
    expect(Object.keys(TEXT).sort()).toEqual([...CHANNEL_FIELDS].sort());
  });

  it('each has a create-channel setting that gives it, in the type the service takes', () => {
    const stored: Record<string, unknown> = { id: 'n', type: 'media-spaces-create-channel', server: '' };
    for (const { setting, text } of Object.values(TEXT)) stored[setting] = text;
    const request = CreateChannelSettings.parse(stored);
    expect(Object.keys(request).sort()).toEqual([...CHANNEL_FIELDS].sort());
    expect(ChannelCreateRequest.safeParse(request).success).toBe(true);
    expect(request).toMatchObject({ continuous_recording: false, recording_duration: 4, tags: ['news', 'studio'] });
  });

  it('each is a field of a window’s channel template, and reads to the same request', () => {
    const channel: Record<string, unknown> = {};
    for (const [field, { text }] of Object.entries(TEXT)) channel[field] = field === 'tags' ? ['news', 'studio'] : text;
    const parsed = parseScheduleObject({ windows: [{ id: 'w', cron: '0 18 * * *', duration: '1h', channel }] });
    expect(parsed.ok).toBe(true);
    const fromWindow = channelFieldsFromText(channel);
    const stored: Record<string, unknown> = { id: 'n', type: 'media-spaces-create-channel', server: '' };
    for (const { setting, text } of Object.values(TEXT)) stored[setting] = text;
    expect(fromWindow).toEqual(CreateChannelSettings.parse(stored));
  });

  it('a window’s channel refuses a field the request lacks, naming the known ones', () => {
    const parsed = parseScheduleObject({
      windows: [{ id: 'w', cron: '0 18 * * *', duration: '1h', channel: { nam: 'x' } }],
    });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(JSON.stringify(parsed.issues)).toContain('name');
  });
});

describe('the input kinds of a job, written once', () => {
  it('are the submit request’s usage.input keys and a follow-up’s', () => {
    const input = Object.fromEntries(INPUT_KINDS.map((k) => [k, []]));
    expect(SubmitJobRequest.safeParse({ usage: { input } }).success).toBe(true);
    const followup = Object.fromEntries(INPUT_KINDS.map((k) => [k, {}]));
    const parsed = parseScheduleObject({
      windows: [{ id: 'w', cron: '0 18 * * *', duration: '1h', followup: { workflow: 'QC', ...followup } }],
    });
    expect(parsed.ok).toBe(true);
  });
});
