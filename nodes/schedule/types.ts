import type { Node, NodeAPI, NodeMessage } from '../shared/node-red-types';

/** One message (or null) per output: start, end, control. */
export type Outputs = (NodeMessage | null)[];

export interface NodeContext {
  get(key: string, callback: (err: Error | null | undefined, value?: unknown) => void): void;
  set(key: string, value: unknown, callback?: (err?: Error | null) => void): void;
}

export type ScheduleNode = Node & {
  context(): NodeContext;
  send(out: Outputs): void;
};

export type ScheduleAPI = NodeAPI & {
  events?: { on(event: string, listener: () => void): void };
  settings?: { userDir?: string; contextStorage?: unknown };
};
