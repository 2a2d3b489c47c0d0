import * as fs from 'node:fs';
import * as path from 'node:path';
import { systemClock } from '../../lib/clock';
import { MediaSpacesError, quoteShort } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import {
  buildEndMessage,
  buildStartMessage,
  type EndEvent,
  formatIssue,
  formatShort,
  formatTime,
  isoSeconds,
  isValidTimeZone,
  type ParseResult,
  parseScheduleObject,
  parseScheduleYaml,
  previewSchedule,
  type ScheduleConfig,
  ScheduleConfigError,
  Scheduler,
  type SchedulerState,
  type StartEvent,
  systemTimeZone,
} from '../../lib/schedule';
import { describeType } from '../../lib/submit-input';
import { asMediaSpacesError, failMessage } from '../shared/failure';
import type {
  DoneFunction,
  Node,
  NodeAPI,
  NodeDef,
  NodeMessage,
  NodeStatus,
  RequestHandler,
} from '../shared/node-red-types';
import { Handover, safeId } from '../shared/node-state';
import { clientFor } from '../shared/server-client';
import { newerState, stateJournal } from '../shared/state-journal';

/**
 * media-spaces-schedule: recording windows (YAML inline or in a watched
 * file, or the editor's list) that emit, without anyone at the keyboard,
 * - output 1 `start`: a create-channel request when a window opens,
 * - output 2 `end`: a submit-job request when it closes,
 * - output 3 `control`: replies to control messages.
 * The scheduling logic is lib/schedule; this file maps it onto Node-RED:
 * settings, messages, status, node context and the editor's preview endpoint.
 */

/** Node context key of the scheduler state (slots in progress, emitted slot keys, paused). */
const CONTEXT_KEY = 'mediaSpacesSchedule';
const COMMANDS = ['trigger', 'pause', 'resume', 'reload', 'list'] as const;
type Command = (typeof COMMANDS)[number];
const SOURCES = ['yaml', 'file', 'editor'] as const;
type Source = (typeof SOURCES)[number];

const PREVIEW_PATH = '/media-spaces/schedule/preview';
const READ_PERMISSION = 'media-spaces-schedule.read';

const handover = new Handover<SchedulerState>();

/**
 * Nodes waiting for their flow to start. One 'flows:started' listener per
 * runtime serves them all (a listener per node would trip the emitter's
 * max-listeners warning with a dozen schedules).
 */
const waitingForStart = new Set<() => void>();
const listeningEmitters = new WeakSet<object>();

interface NodeContext {
  get(key: string, callback: (err: Error | null | undefined, value?: unknown) => void): void;
  set(key: string, value: unknown, callback?: (err?: Error | null) => void): void;
}

type Outputs = (NodeMessage | null)[];

type ScheduleNode = Node & {
  context(): NodeContext;
  error(error: unknown, msg?: NodeMessage): void;
  send(out: Outputs): void;
};

type ScheduleAPI = NodeAPI & {
  events?: { on(event: string, listener: () => void): void };
  settings?: { userDir?: string; contextStorage?: unknown };
};

interface Settings {
  source: Source;
  yaml: string;
  file: string;
  windows: unknown;
  scheduleId: string;
  timezone: string | undefined;
  catchUp: boolean;
  server: string;
  watchInterval: number;
}

function readSettings(def: NodeDef): Settings {
  const source = SOURCES.includes(def.source as Source) ? (def.source as Source) : 'yaml';
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const interval = Number(def.watchInterval);
  return {
    source,
    yaml: text(def.yaml),
    file: text(def.file).trim(),
    windows: def.windows,
    scheduleId: text(def.scheduleId).trim(),
    timezone: text(def.timezone).trim() || undefined,
    catchUp: def.catchUp !== false && def.catchUp !== 'false',
    server: text(def.server),
    watchInterval: Number.isFinite(interval) && interval >= 20 ? interval : 1000,
  };
}

export = function register(RED: ScheduleAPI): void {
  function MediaSpacesScheduleNode(this: ScheduleNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const settings = readSettings(def);
    const filePath = settings.file ? path.resolve(RED.settings?.userDir ?? process.cwd(), settings.file) : '';
    let closed = false;
    let config: ScheduleConfig = { timezone: systemTimeZone(), windows: [] };
    let configError: MediaSpacesError | undefined;
    let scheduler: Scheduler | undefined;
    let fileListener: ((curr: fs.Stats, prev: fs.Stats) => void) | undefined;
    const workflowIds = new Map<string, { id: string; at: number }>();

    const scheduleIdOf = (cfg: ScheduleConfig) => settings.scheduleId || cfg.scheduleId || safeId(node.id);

    // ------------------------------------------------------------ configuration

    /** Reads the schedule from its source; a ParseResult either way. */
    function readSchedule(): ParseResult {
      if (settings.timezone && !isValidTimeZone(settings.timezone)) {
        return {
          ok: false,
          issues: [{ path: 'timezone', message: `"${settings.timezone}" (node setting) is not an IANA time zone` }],
        };
      }
      const options = { defaultTimezone: settings.timezone };
      if (settings.source === 'file') {
        if (!filePath) return { ok: false, issues: [{ path: 'file', message: 'no schedule file set in the node' }] };
        let text: string;
        try {
          text = fs.readFileSync(filePath, 'utf8');
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          return {
            ok: false,
            issues: [{ path: 'file', message: `cannot read ${filePath}${code ? ` (${code})` : ''}` }],
          };
        }
        return parseScheduleYaml(text, options);
      }
      if (settings.source === 'editor') {
        const windows = Array.isArray(settings.windows) ? settings.windows : [];
        return parseScheduleObject({ windows }, options);
      }
      return parseScheduleYaml(settings.yaml, options);
    }

    function sourceName(): string {
      if (settings.source === 'file') return `Schedule file ${filePath || '(none)'}`;
      if (settings.source === 'editor') return 'Schedule (editor list)';
      return 'Schedule YAML';
    }

    /** Loads the schedule; on failure keeps the previous windows and returns the error. */
    function load(): MediaSpacesError | undefined {
      const result = readSchedule();
      if (!result.ok) {
        configError = new ScheduleConfigError(result.issues, sourceName());
        return configError;
      }
      configError = undefined;
      config = result.config;
      scheduler?.setConfig(config, scheduleIdOf(config));
      return undefined;
    }

    /** A configuration problem without an input message: Catch nodes get it with the issues. */
    function reportConfigError(error: MediaSpacesError, topic: string): void {
      const msg: NodeMessage = {
        topic,
        payload: {
          source: settings.source,
          file: filePath || undefined,
          issues: error instanceof ScheduleConfigError ? error.issues.map(formatIssue) : [error.message],
        },
      };
      failMessage(node, msg, error.toJSON());
    }

    // ------------------------------------------------------------ emitting

    function emitStart({ slot, window, replay }: StartEvent): void {
      const msg = buildStartMessage(
        scheduler?.scheduleId ?? scheduleIdOf(config),
        window,
        slot,
      ) as unknown as NodeMessage;
      if (replay) msg.replay = true;
      node.send([msg, null, null]);
    }

    function emitEnd(event: EndEvent): void {
      if (event.replay && isPlainObject(event.message)) {
        // the very message sent before the restart: same body, same idempotency key
        node.send([null, { ...structuredClone(event.message), replay: true }, null]);
        return;
      }
      const id = (event.channel as { id?: unknown } | undefined)?.id;
      if (!settings.server || typeof id !== 'string') {
        sendEnd(event);
        return;
      }
      refreshChannel(id, event.channel).then((channel) => {
        if (!closed) sendEnd({ ...event, channel });
      });
    }

    /**
     * The channel as the service reports it now: the one create-channel returned
     * predates the recording, and follow-ups reference the recording's outputs.
     */
    async function refreshChannel(id: string, stored: EndEvent['channel']): Promise<EndEvent['channel']> {
      try {
        const { data } = await clientFor(RED, settings.server, 'liveCapture').getChannel(id);
        return data;
      } catch (err) {
        const failure = asMediaSpacesError(err, `Refreshing channel ${id}`);
        node.warn(`${failure.message}; the end message carries the channel as it was created`);
        return stored;
      }
    }

    function sendEnd({ slot, window, channel, replay }: EndEvent): void {
      const msg = buildEndMessage(scheduler?.scheduleId ?? scheduleIdOf(config), window, slot, channel) as ReturnType<
        typeof buildEndMessage
      > &
        NodeMessage;
      if (replay) msg.replay = true;
      // kept with the slot for the replay period, so a replay after a crash sends this very request
      const send = () => {
        const { replay: _flag, ...plain } = msg;
        scheduler?.rememberEnd(slot.key, JSON.parse(JSON.stringify(plain)));
        node.send([null, msg, null]);
      };
      if (msg.unresolved) {
        node.warn(
          `${slot.key}: ${channel === undefined ? 'no channel came back for this window; ' : ''}` +
            `templates left empty: ${msg.unresolved.join(', ')}`,
        );
      }
      if (msg.workflow !== undefined && msg.workflow_id === undefined) {
        resolveWorkflow(msg.workflow).then(
          (id) => {
            if (closed) return;
            msg.workflow_id = id;
            send();
          },
          (err) => {
            if (closed) return;
            const failure = asMediaSpacesError(err, `Schedule end of ${slot.key}`);
            failMessage(node, msg, failure.toJSON());
          },
        );
        return;
      }
      send();
    }

    /** A follow-up's workflow name to its id, through the optional config node (cached 5 minutes). */
    async function resolveWorkflow(name: string): Promise<string> {
      const cached = workflowIds.get(name);
      if (cached && Date.now() - cached.at < 300_000) return cached.id;
      if (!settings.server) {
        throw MediaSpacesError.invalidInput(
          `followup.workflow "${name}" is a name: choose a server in the schedule node to look it up, or give workflow_id`,
          { 'followup.workflow': 'needs a server to look up' },
        );
      }
      const all = await clientFor(RED, settings.server, 'workflow').listAllWorkflows();
      const matches = all.filter((w) => w.name === name);
      const chosen = matches.find((w) => w.status === 'active') ?? matches[0];
      if (!chosen) {
        throw MediaSpacesError.invalidInput(`no workflow named "${name}" in the space`, {
          'followup.workflow': 'not found',
        });
      }
      workflowIds.set(name, { id: chosen.id, at: Date.now() });
      return chosen.id;
    }

    // ------------------------------------------------------------ status

    function updateStatus(): void {
      if (closed) return;
      const status: NodeStatus = statusNow();
      node.status(status);
    }

    function statusNow(): NodeStatus {
      if (configError && config.windows.length === 0) {
        const first =
          configError instanceof ScheduleConfigError ? formatIssue(configError.issues[0]) : configError.message;
        return { fill: 'red', shape: 'ring', text: truncate(first, 80) };
      }
      if (!scheduler) return { fill: 'grey', shape: 'ring', text: 'starting' };
      const active = scheduler.activeSlots();
      if (active.length > 0) {
        const first = active[0];
        const more = active.length > 1 ? ` (+${active.length - 1})` : '';
        return {
          fill: scheduler.paused ? 'yellow' : 'green',
          shape: 'dot',
          text: `${scheduler.paused ? 'paused; ' : ''}recording: ${first.window.name} until ${formatTime(first.end, first.window.timezone)}${more}`,
        };
      }
      if (scheduler.paused) return { fill: 'yellow', shape: 'ring', text: 'paused' };
      if (configError)
        return { fill: 'red', shape: 'ring', text: truncate(`reload failed: ${configError.message}`, 80) };
      const next = scheduler.nextStart();
      if (!next) {
        return { fill: 'grey', shape: 'ring', text: config.windows.length ? 'no upcoming starts' : 'no windows' };
      }
      return {
        fill: 'blue',
        shape: 'ring',
        text: `next: ${formatShort(next.start, next.window.timezone)} ${next.window.timezone}`,
      };
    }

    // ------------------------------------------------------------ start-up

    const initial = load();
    updateStatus();

    // with a file context store, also a synchronous journal: a crash loses nothing the schedule acted on
    const journal = stateJournal(RED.settings, 'schedule', node.id);
    let journalFailed = false;

    const store = {
      load: (): Promise<SchedulerState | undefined> => {
        const handed = handover.take(node.id);
        if (handed) return Promise.resolve(handed);
        return new Promise((resolve) => {
          const fromJournal = journal?.read();
          try {
            node.context().get(CONTEXT_KEY, (err, value) => {
              if (err) node.warn(`cannot read the schedule state from node context: ${err.message}`);
              resolve(newerState(err ? undefined : value, fromJournal) as SchedulerState | undefined);
            });
          } catch (err) {
            node.warn(`cannot read the schedule state from node context: ${(err as Error).message}`);
            resolve(fromJournal as SchedulerState | undefined);
          }
        });
      },
      save: (state: SchedulerState): void => {
        if (closed) return;
        const stamped = { ...state, savedAt: Date.now() };
        if (journal) {
          try {
            journal.write(stamped);
            journalFailed = false;
          } catch (err) {
            if (!journalFailed)
              node.warn(`cannot write the schedule journal ${journal.file}: ${(err as Error).message}`);
            journalFailed = true;
          }
        }
        node.context().set(CONTEXT_KEY, stamped, (err) => {
          if (err) node.warn(`cannot save the schedule state to node context: ${err.message}`);
        });
      },
    };

    scheduler = new Scheduler({
      scheduleId: scheduleIdOf(config),
      config,
      clock: systemClock,
      store,
      catchUp: settings.catchUp,
      onStart: emitStart,
      onEnd: emitEnd,
      onChange: updateStatus,
      onError: (err) => node.error(asMediaSpacesError(err, 'Schedule').message),
    });

    // Start once the whole flow runs, so that catch-up starts reach the nodes
    // wired after this one and Catch nodes see configuration errors.
    let started = false;
    const begin = (): void => {
      waitingForStart.delete(begin);
      if (started || closed) return;
      started = true;
      if (initial) reportConfigError(initial, 'config');
      // ends are replayed after a restart only: a redeploy hands the state over in memory, and replaying the
      // last minutes' ends on every deploy would flood the flow (in-flight requests cut off by a redeploy are
      // dropped, as documented for the operation nodes)
      const replayEnds = !handover.has(node.id);
      scheduler
        ?.start({ replayEnds })
        .then(updateStatus, (err) => node.error(asMediaSpacesError(err, 'Schedule').message));
    };
    if (RED.events) waitingForStart.add(begin);
    else setImmediate(begin);

    if (settings.source === 'file' && filePath) {
      fileListener = (curr, prev) => {
        if (closed) return;
        if (curr.mtimeMs === prev.mtimeMs && curr.size === prev.size && curr.ino === prev.ino) return;
        const error = load();
        if (error) reportConfigError(error, 'reload');
        else node.log(`reloaded ${filePath}: ${config.windows.length} window(s)`);
        updateStatus();
      };
      fs.watchFile(filePath, { interval: settings.watchInterval, persistent: false }, fileListener);
    }

    // ------------------------------------------------------------ input

    node.on('input', (msg, send, done) => {
      try {
        handleInput(msg, (out) => send(out as unknown as NodeMessage[]), done);
      } catch (err) {
        fail(msg, err, done);
      }
    });

    function fail(msg: NodeMessage, error: unknown, done: DoneFunction): void {
      failMessage(node, msg, asMediaSpacesError(error, 'Schedule').toJSON(), done);
    }

    function handleInput(msg: NodeMessage, send: (out: Outputs) => void, done: DoneFunction): void {
      if (!scheduler) throw new MediaSpacesError({ code: 'aborted', message: 'the schedule is closed' });
      const window = msg.window;
      if (isPlainObject(window) && typeof window.slotKey === 'string') {
        rememberChannel(msg, window.slotKey, send, done);
        return;
      }
      const command = commandOf(msg);
      switch (command) {
        case 'trigger': {
          const id =
            isPlainObject(msg.payload) && msg.payload.window_id !== undefined ? msg.payload.window_id : msg.window_id;
          if (typeof id !== 'string' || id === '') {
            throw MediaSpacesError.invalidInput('trigger needs msg.window_id: the id of the window to start now', {
              window_id: 'is required',
            });
          }
          if (!config.windows.some((w) => w.id === id)) {
            const known = config.windows.map((w) => w.id).join(', ') || 'none';
            throw MediaSpacesError.invalidInput(`no window with id ${quoteShort(id)} (windows: ${known})`, {
              window_id: 'unknown window',
            });
          }
          const event = scheduler.trigger(id);
          const start = buildStartMessage(scheduler.scheduleId, event.window, event.slot);
          send([{ _msgid: msg._msgid, ...start } as NodeMessage, null, null]);
          done();
          return;
        }
        case 'pause':
        case 'resume': {
          if (command === 'pause') scheduler.pause();
          else scheduler.resume();
          updateStatus();
          reply(msg, command, { paused: scheduler.paused }, send, done);
          return;
        }
        case 'reload': {
          const error = load();
          updateStatus();
          if (error) throw error;
          reply(
            msg,
            command,
            { reloaded: true, source: settings.source, windows: config.windows.map((w) => w.id) },
            send,
            done,
          );
          return;
        }
        case 'list': {
          const requested = (isPlainObject(msg.payload) ? msg.payload.count : undefined) ?? msg.count;
          const count =
            typeof requested === 'number' && Number.isInteger(requested) ? Math.min(100, Math.max(1, requested)) : 10;
          const upcoming = scheduler.upcoming(count).map((u) => ({
            window_id: u.window_id,
            name: u.name,
            start: isoSeconds(u.start),
            end: isoSeconds(u.end),
            local: `${formatShort(u.start, u.timezone)} ${u.timezone}`,
            timezone: u.timezone,
            slotKey: u.slotKey,
          }));
          msg.active = scheduler.activeSlots().map((s) => ({
            slotKey: s.key,
            window_id: s.windowId,
            name: s.window.name,
            start: isoSeconds(s.start),
            end: isoSeconds(s.end),
            channel_id: isPlainObject(s.channel) ? s.channel.id : undefined,
          }));
          msg.paused = scheduler.paused;
          reply(msg, command, upcoming, send, done);
          return;
        }
      }
    }

    function reply(
      msg: NodeMessage,
      topic: string,
      payload: unknown,
      send: (out: Outputs) => void,
      done: DoneFunction,
    ) {
      msg.topic = topic;
      msg.payload = payload;
      send([null, null, msg]);
      done();
    }

    function rememberChannel(msg: NodeMessage, slotKey: string, send: (out: Outputs) => void, done: DoneFunction) {
      const channel = msg.payload;
      if (!isPlainObject(channel) || typeof channel.id !== 'string' || channel.id === '') {
        throw MediaSpacesError.invalidInput(
          `a message with msg.window.slotKey must carry the created channel (an object with an id) on msg.payload`,
          { payload: 'is not a channel' },
        );
      }
      if (!scheduler?.rememberChannel(slotKey, channel)) {
        throw MediaSpacesError.invalidInput(
          `no window of this schedule is in progress for slot ${slotKey}: the channel came back after the window ended, or belongs to another schedule`,
          { 'window.slotKey': 'not in progress' },
        );
      }
      updateStatus();
      msg.topic = 'channel';
      msg.payload = { slotKey, channel_id: channel.id, remembered: true };
      send([null, null, msg]);
      done();
    }

    function commandOf(msg: NodeMessage): Command {
      const payload = msg.payload;
      let raw: unknown;
      let from = '';
      if (isPlainObject(payload) && payload.command !== undefined) {
        raw = payload.command;
        from = 'msg.payload.command';
      } else if (typeof msg.topic === 'string' && msg.topic.trim() !== '') {
        raw = msg.topic;
        from = 'msg.topic';
      } else if (typeof payload === 'string') {
        raw = payload;
        from = 'msg.payload';
      }
      const name = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
      if ((COMMANDS as readonly string[]).includes(name)) return name as Command;
      const expected = `${COMMANDS.join(', ')} (in msg.topic or msg.payload.command), or a created channel routed back with msg.window.slotKey`;
      throw MediaSpacesError.invalidInput(
        from
          ? `unknown command ${shownCommand(raw)} in ${from}: expected ${expected}`
          : `not a schedule control message: expected ${expected}`,
        { command: 'unknown' },
      );
    }

    // ------------------------------------------------------------ close

    node.on('close', (removed, done) => {
      closed = true;
      waitingForStart.delete(begin);
      if (fileListener) fs.unwatchFile(filePath, fileListener);
      fileListener = undefined;
      if (scheduler) {
        if (!removed && started) handover.keep(node.id, scheduler.snapshot());
        else handover.drop(node.id);
        scheduler.stop();
      }
      // a removed node's context is deleted by the runtime; its journal goes with it
      if (removed) journal?.remove();
      scheduler = undefined;
      node.status({});
      done();
    });
  }

  RED.nodes.registerType('media-spaces-schedule', MediaSpacesScheduleNode);
  registerPreviewRoute(RED);
  const events = RED.events;
  if (events && !listeningEmitters.has(events)) {
    listeningEmitters.add(events);
    events.on('flows:started', () => {
      for (const begin of [...waitingForStart]) begin();
    });
  }
};

/** A command that is not one, as the error quotes it: text cut short, an object or list by its type. */
function shownCommand(raw: unknown): string {
  if (typeof raw === 'string') return quoteShort(raw);
  if (typeof raw === 'object' && raw !== null) return describeType(raw);
  return JSON.stringify(raw) ?? String(raw);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** GET ?yaml=... or POST {yaml} / {model}: validation issues with lines, each window in words and its next starts. */
function registerPreviewRoute(RED: ScheduleAPI): void {
  const permit: RequestHandler = RED.auth?.needsPermission(READ_PERMISSION) ?? ((_req, _res, next) => next());
  const handler: RequestHandler = (req, res) => {
    try {
      const body = isPlainObject(req.body) ? req.body : {};
      const query = req.query ?? {};
      const request = {
        yaml: typeof query.yaml === 'string' ? query.yaml : body.yaml,
        model: body.model,
        timezone: query.timezone ?? body.timezone,
        count: query.count ?? body.count,
      };
      if (typeof request.yaml !== 'string' && request.model === undefined) {
        res.status(400).json({ ok: false, issues: [{ path: '', message: 'give yaml (text) or model (object)' }] });
        return;
      }
      res.status(200).json(previewSchedule(request));
    } catch (err) {
      res.status(500).json({ ok: false, issues: [{ path: '', message: (err as Error).message }] });
    }
  };
  RED.httpAdmin.get(PREVIEW_PATH, permit, handler);
  RED.httpAdmin.post(PREVIEW_PATH, permit, handler);
}
