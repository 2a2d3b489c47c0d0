import type { SimulatorInfo } from '../../../lib/simulator';
import type { FlowNode } from './node-red';

/**
 * examples/recording-automation.json made fast, for the restart suite:
 * several windows on 6-field cron expressions (every 10 s, staggered), 6 s
 * long; create channel wired back into the schedule; the end message to
 * submit job and on to follow job (300 ms interval). Function nodes print
 * one parseable line per finished job and per caught error.
 */

export const PERIOD_MS = 10_000;
export const DURATION_MS = 6_000;
export const FOLLOWUP_WORKFLOW = 'aaaaaaaa-0000-4000-8000-000000000006';
export const SCHEDULE_NODE = 'rel0schedule0001';
export const FOLLOW_JOB_NODE = 'rel0watch0000001';
export const CONFIG_NODE = 'rel0config000001';
const TAB = 'rel0tab000000001';

export interface WindowPlan {
  id: string;
  /** Seconds past every tenth second at which the window opens. */
  offsetS: number;
  /** Instead: the cron of its starts and its length in seconds (a window longer than the others') */
  cron?: string;
  durationS?: number;
  /** Instead of cron and duration: the window's source lines (an `ical:` feed, its padding), indented as fields */
  source?: string[];
  /** The window's `priority` over the document's max_channels */
  priority?: number;
}

export function windowPlans(count: number): WindowPlan[] {
  return Array.from({ length: count }, (_, i) => ({ id: `w${i}`, offsetS: Math.floor((i * 10) / count) }));
}

/** Channel and job names carry the window id and the slot's epoch second, so each slot is countable. */
export const channelName = (windowId: string, epochS: number) => `rel ${windowId} ${epochS}`;
export const jobName = (windowId: string, epochS: number) => `followup ${windowId} ${epochS}`;

function scheduleYaml(windows: WindowPlan[]): string {
  const lines = ['timezone: UTC', 'windows:'];
  for (const w of windows) {
    const seconds = [0, 10, 20, 30, 40, 50].map((s) => s + w.offsetS).join(',');
    lines.push(
      `  - id: ${w.id}`,
      `    name: Window ${w.id}`,
      ...(w.source ?? [
        `    cron: "${w.cron ?? `${seconds} * * * * *`}"`,
        `    duration: ${w.durationS ?? DURATION_MS / 1000}s`,
      ]),
      ...(w.priority === undefined ? [] : [`    priority: ${w.priority}`]),
      '    channel:',
      '      name: "rel {{window.id}} {{slot.epoch}}"',
      '      source_id: 5f0c6a1e-3b7d-4c2a-9e21-0d4b7c9a1f00',
      '      continuous_recording: false',
      '      recording_duration: 1',
      '    followup:',
      `      workflow_id: ${FOLLOWUP_WORKFLOW}`,
      '      job_name: "followup {{window.id}} {{slot.epoch}}"',
      '      variables:',
      '        Programme: "{{window.name}}"',
      '      media_nicknames:',
      // the channel id, not its output location: a channel created by a late catch-up has no outputs yet at the end
      '        recording: "s3://reliability/{{channel.id}}.mxf"',
    );
  }
  return `${lines.join('\n')}\n`;
}

const logLine = (tag: string, fields: string) => `node.log('${tag} ' + JSON.stringify(${fields}));\nreturn null;`;

export function recordingFlow(
  info: SimulatorInfo,
  windows: WindowPlan[],
): { flows: FlowNode[]; credentials: Record<string, Record<string, string>> } {
  const space = info.spaces[0];
  const at = (x: number, y: number) => ({ z: TAB, x, y });
  const flows: FlowNode[] = [
    { id: TAB, type: 'tab', label: 'Restart reliability', disabled: false, info: '' },
    {
      id: SCHEDULE_NODE,
      type: 'media-spaces-schedule',
      ...at(140, 140),
      name: 'Windows',
      source: 'yaml',
      yaml: scheduleYaml(windows),
      file: '',
      windows: [],
      scheduleId: 'rel',
      timezone: 'UTC',
      catchUp: true,
      server: CONFIG_NODE,
      wires: [['rel0channel00001'], ['rel0submit000001'], []],
    },
    {
      id: 'rel0channel00001',
      type: 'media-spaces-create-channel',
      ...at(380, 100),
      name: 'Create channel',
      server: CONFIG_NODE,
      wires: [[SCHEDULE_NODE]],
    },
    {
      id: 'rel0submit000001',
      type: 'media-spaces-submit-job',
      ...at(390, 180),
      name: 'Submit follow-up',
      server: CONFIG_NODE,
      workflowId: '',
      workflowIdType: 'str',
      jobName: '',
      jobInputs: '',
      jobInputsType: 'json',
      wires: [[FOLLOW_JOB_NODE]],
    },
    {
      id: FOLLOW_JOB_NODE,
      type: 'media-spaces-follow-job',
      ...at(600, 180),
      name: 'Follow job',
      server: CONFIG_NODE,
      interval: 300,
      backoffMax: 2000,
      concurrency: 8,
      timeout: '',
      wires: [['rel0done00000001'], []],
    },
    {
      id: 'rel0done00000001',
      type: 'function',
      ...at(820, 160),
      name: 'done',
      func: logLine(
        'REL-DONE',
        '{job: msg.payload && msg.payload.id, name: msg.payload && msg.payload.name, state: msg.payload && msg.payload.state, slot: msg.window && msg.window.slotKey}',
      ),
      outputs: 1,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      wires: [[]],
    },
    {
      id: 'rel0catch0000001',
      type: 'catch',
      ...at(130, 300),
      name: 'errors',
      scope: null,
      uncaught: false,
      wires: [['rel0error0000001']],
    },
    {
      id: 'rel0error0000001',
      type: 'function',
      ...at(300, 300),
      name: 'error',
      func: logLine(
        'REL-ERROR',
        '{node: msg.error && msg.error.source && msg.error.source.type, message: msg.error && msg.error.message, slot: msg.window && msg.window.slotKey}',
      ),
      outputs: 1,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      wires: [[]],
    },
    {
      id: CONFIG_NODE,
      type: 'media-spaces-config',
      name: 'Simulator',
      workflowUrl: info.workflow_url,
      liveCaptureUrl: info.livecapture_url,
      spaceId: space.space_id,
      workflowPrefix: '/workflow/v1',
      timeout: '5000',
      retries: '3',
      rejectUnauthorized: true,
    },
  ];
  return {
    flows,
    credentials: {
      [CONFIG_NODE]: { apiKey: space.api_keys.admin ?? '', accessToken: space.access_token ?? '' },
    },
  };
}
