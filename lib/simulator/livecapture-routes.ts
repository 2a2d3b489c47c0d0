import { randomUUID } from 'node:crypto';
import { ChannelCreateRequest, describeIssues, UUID_PATTERN } from '../schemas';
import { channelState, channelView, recordingStartOf } from './channels';
import { MAX_JSON_DEPTH, nestingRefusal, type OperationContext } from './operation';
import { fail, ok, quote, type Reply } from './reply';
import type { ChannelRecord } from './state';

const EVENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;
const DEFAULT_REGION = 'sim-local-1';

/**
 * POST /{space_id}/channels: 201 with the channel. Malformed JSON is 400,
 * a body that is not a valid create request is 422; both as `{errors:{field:msg}}`.
 * The description does not say which fields are required; the simulator
 * requires `name`, because a nameless channel is useless to an operator.
 */
export function createChannel(c: OperationContext): Reply {
  const body = c.json();
  if (!body.ok) return fail(400, body.reason, { body: body.reason });
  // expected_properties is JSON inside a string, which the schema parses: held to the body's depth first
  const properties = (body.value as { expected_properties?: unknown } | null)?.expected_properties;
  if (typeof properties === 'string' && nestingRefusal(properties)) {
    return fail(422, 'invalid channel create request', {
      expected_properties: `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
    });
  }
  const parsed = ChannelCreateRequest.safeParse(body.value);
  const fields = parsed.success ? {} : describeIssues(parsed.error);
  if ('(value)' in fields) {
    fields.body = 'must be a JSON object (a channel create request)';
    delete fields['(value)'];
  }
  const value = body.value as { name?: unknown } | null;
  if (typeof value === 'object' && value !== null && value.name === undefined) fields.name = 'name is required';
  if (!parsed.success || Object.keys(fields).length > 0) return fail(422, 'invalid channel create request', fields);

  const r = parsed.data;
  const channel: ChannelRecord = {
    id: randomUUID(),
    spaceId: c.space.id,
    name: r.name ?? '',
    description: r.description ?? '',
    sourceId: r.source_id ?? null,
    expectedProperties: r.expected_properties ?? null,
    continuousRecording: r.continuous_recording ?? false,
    recordingDurationHours: r.recording_duration ?? null,
    region: r.region ?? DEFAULT_REGION,
    tags: r.tags ?? [],
    createdAt: c.now,
    recordingAfterMs: c.warmUpMs,
    recordingId: randomUUID(),
    stoppedAt: null,
    failure: null,
  };
  c.channelFailures.claim(channel);
  c.space.channels.set(channel.id, channel);
  // Allocated now, visible from the moment the recording starts (see EventRecord).
  const startsAt = recordingStartOf(channel);
  for (const kind of ['recording_started', 'marker'] as const) {
    const id = randomUUID();
    c.space.events.set(id, {
      id,
      spaceId: c.space.id,
      channelId: channel.id,
      recordingId: channel.recordingId,
      kind,
      name: kind === 'marker' ? `Marker: ${channel.name} start` : `Recording started: ${channel.name}`,
      occursAt: startsAt,
    });
  }
  return ok(201, channelView(channel, c.now));
}

function findChannel(c: OperationContext): { channel: ChannelRecord } | Reply {
  const id = c.params[1];
  if (!UUID_PATTERN.test(id)) {
    return fail(400, `channel_id must be a UUID, got ${quote(id)}`, { channel_id: 'must be a UUID' });
  }
  const channel = c.space.channels.get(id.toLowerCase());
  return channel ? { channel } : fail(404, `channel ${id} not found in space ${c.space.id}`);
}

/** GET /{space_id}/channels/{id} (extension): the channel's current state. */
export function getChannel(c: OperationContext): Reply {
  const found = findChannel(c);
  if ('status' in found) return found;
  return ok(200, channelView(found.channel, c.now));
}

/**
 * POST /{space_id}/channels/{id}/stop (extension): ends a recording, which
 * otherwise goes on (recording_duration is a window, not a length). Stopping a channel that
 * is already finishing or inactive answers its state again (a retry is safe);
 * a channel that has not started recording yet cannot be stopped (409). A stop sent again
 * with the same Idempotency-Key gets the first answer, 409 included (service.ts).
 */
export function stopChannel(c: OperationContext): Reply {
  const found = findChannel(c);
  if ('status' in found) return found;
  const { channel } = found;
  const state = channelState(channel, c.now);
  // ERROR, like FINISHING_RECORDING and INACTIVE, has nothing left to stop: its state is the answer
  if (state === 'PENDING' || state === 'ACTIVE') {
    return fail(409, `channel ${channel.id} is ${state}; only a RECORDING channel can be stopped`);
  }
  if (state === 'RECORDING') channel.stoppedAt = c.now;
  return ok(200, channelView(channel, c.now));
}

/** DELETE /{space_id}/events/{event_id}: 204 with an empty body. */
export function deleteEvent(c: OperationContext): Reply {
  const id = c.params[1];
  if (!EVENT_ID.test(id)) {
    const why =
      id.length === 0
        ? 'is required'
        : id.length > 128
          ? 'must be at most 128 characters'
          : 'may contain only letters, digits and . _ ~ -';
    return fail(400, `event_id ${why}`, { event_id: `event_id ${why}` });
  }
  const event = c.space.events.get(id) ?? c.space.events.get(id.toLowerCase());
  if (!event || event.occursAt > c.now) return fail(404, `event ${id} not found in space ${c.space.id}`);
  c.space.events.delete(event.id);
  return { status: 204 };
}
