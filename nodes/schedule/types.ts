import type { Node, NodeAPI, NodeContext, Outputs } from '../shared/node-red-types';

export type ScheduleNode = Node & {
  context(): NodeContext;
  /** One entry per output: start, end, control. */
  send(out: Outputs): void;
};

export type ScheduleAPI = NodeAPI & {
  events?: { on(event: string, listener: () => void): void };
  settings?: { userDir?: string; fileWorkingDirectory?: string; contextStorage?: unknown; mediaSpaces?: unknown };
};
