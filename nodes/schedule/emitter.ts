import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import {
  buildEndMessage,
  buildStartMessage,
  type EndEvent,
  type EndMessage,
  type Scheduler,
  type StartEvent,
} from '../../lib/schedule';
import { asMediaSpacesError, failMessage } from '../shared/failure';
import type { NodeMessage } from '../shared/node-red-types';
import { clientFor } from '../shared/server-client';
import type { ScheduleSettings } from './settings';
import type { ScheduleAPI, ScheduleNode } from './types';

/** What the emitter reads from the node it works for. */
export interface EmitterHost {
  readonly scheduler: Scheduler | undefined;
  readonly closed: boolean;
  scheduleId(): string;
}

type Delivered = (sent: boolean) => void;
const ignore: Delivered = () => undefined;

/** How long a follow-up's workflow name stays resolved to an id. */
const WORKFLOW_CACHE_MS = 300_000;

/**
 * Turns the scheduler's starts and ends into messages: output 1 a
 * create-channel request, output 2 a submit-job request (with the channel as
 * the service reports it now, and the workflow name looked up).
 */
export class Emitter {
  private readonly workflowIds = new Map<string, { id: string; at: number }>();

  constructor(
    private readonly RED: ScheduleAPI,
    private readonly node: ScheduleNode,
    private readonly settings: ScheduleSettings,
    private readonly host: EmitterHost,
  ) {}

  emitStart({ slot, window, replay }: StartEvent): void {
    const msg: NodeMessage = { ...buildStartMessage(this.host.scheduleId(), window, slot) };
    if (replay) msg.replay = true;
    this.node.send([msg, null, null]);
  }

  /** `after` learns whether the end message went out (coordination completes or releases the slot's end with it). */
  emitEnd(event: EndEvent, after: Delivered = ignore): void {
    if (event.replay && isPlainObject(event.message)) {
      // the very message sent before the restart: same body, same idempotency key
      this.node.send([null, { ...structuredClone(event.message), replay: true }, null]);
      after(true);
      return;
    }
    const id = isPlainObject(event.channel) ? event.channel.id : undefined;
    if (!this.settings.server || typeof id !== 'string') {
      this.sendEnd(event, after);
      return;
    }
    this.refreshChannel(id, event.channel).then((channel) => {
      if (!this.host.closed) this.sendEnd({ ...event, channel }, after);
      else after(false);
    });
  }

  /**
   * The channel as the service reports it now: the one create-channel returned
   * predates the recording, and follow-ups reference the recording's outputs.
   */
  private async refreshChannel(id: string, stored: unknown): Promise<unknown> {
    try {
      const { data } = await clientFor(this.RED, this.settings.server, 'liveCapture').getChannel(id);
      return data;
    } catch (err) {
      const failure = asMediaSpacesError(err, `Refreshing channel ${id}`);
      this.node.warn(`${failure.message}; the end message carries the channel as it was created`);
      return stored;
    }
  }

  private sendEnd({ slot, window, channel, replay }: EndEvent, after: Delivered): void {
    const msg: EndMessage & NodeMessage = { ...buildEndMessage(this.host.scheduleId(), window, slot, channel) };
    if (replay) msg.replay = true;
    if (msg.unresolved) {
      this.node.warn(
        `${slot.key}: ${channel === undefined ? 'no channel came back for this window; ' : ''}` +
          `templates left empty: ${msg.unresolved.join(', ')}`,
      );
    }
    if (msg.workflow === undefined || msg.workflow_id !== undefined) {
      this.deliverEnd(slot.key, msg);
      after(true);
      return;
    }
    this.resolveWorkflow(msg.workflow).then(
      (id) => {
        if (this.host.closed) return after(false);
        msg.workflow_id = id;
        this.deliverEnd(slot.key, msg);
        after(true);
      },
      (err) => {
        after(false);
        if (this.host.closed) return;
        failMessage(this.node, msg, asMediaSpacesError(err, `Schedule end of ${slot.key}`).toJSON());
      },
    );
  }

  /** Sends the end, kept with the slot for the replay period so a replay after a crash sends this very request. */
  private deliverEnd(key: string, msg: NodeMessage): void {
    const { replay: _flag, ...plain } = msg;
    this.host.scheduler?.rememberEnd(key, JSON.parse(JSON.stringify(plain)));
    this.node.send([null, msg, null]);
  }

  /** A follow-up's workflow name to its id, through the optional config node (cached 5 minutes). */
  private async resolveWorkflow(name: string): Promise<string> {
    const cached = this.workflowIds.get(name);
    if (cached && Date.now() - cached.at < WORKFLOW_CACHE_MS) return cached.id;
    if (!this.settings.server) {
      throw MediaSpacesError.invalidInput(
        `followup.workflow "${name}" is a name: choose a server in the schedule node to look it up, or give workflow_id`,
        { 'followup.workflow': 'needs a server to look up' },
      );
    }
    const all = await clientFor(this.RED, this.settings.server, 'workflow').listAllWorkflows();
    const matches = all.filter((w) => w.name === name);
    const chosen = matches.find((w) => w.status === 'active') ?? matches[0];
    if (!chosen) {
      throw MediaSpacesError.invalidInput(`no workflow named "${name}" in the space`, {
        'followup.workflow': 'not found',
      });
    }
    this.workflowIds.set(name, { id: chosen.id, at: Date.now() });
    return chosen.id;
  }
}
