/**
 * The slice of the Node-RED runtime API these nodes use, typed by hand.
 * Node-RED ships no type definitions of its own, and the nodes must not import
 * `node-red` at run time (it is the host, not a dependency), so we describe
 * only what we call.
 */

export interface NodeMessage {
  _msgid?: string;
  payload?: unknown;
  [key: string]: unknown;
}

export interface NodeStatus {
  fill?: 'red' | 'green' | 'yellow' | 'blue' | 'grey';
  shape?: 'ring' | 'dot';
  text?: string;
}

export type SendFunction = (msg: NodeMessage | NodeMessage[] | NodeMessage[][] | null) => void;

/** One entry per output: a message, a list of messages, or null for none. */
export type Outputs = (NodeMessage | NodeMessage[] | null)[];

/** A node's context store (`node.context()`), callback style so that async stores work too. */
export interface NodeContext {
  get(key: string, callback: (err: Error | null | undefined, value?: unknown) => void): void;
  set(key: string, value: unknown, callback?: (err?: Error | null) => void): void;
}
export type DoneFunction = (err?: Error) => void;

export interface NodeDef {
  id: string;
  type: string;
  name?: string;
  z?: string;
  [key: string]: unknown;
}

export interface Node {
  id: string;
  type: string;
  name?: string;
  z?: string;
  credentials?: Record<string, string | undefined>;
  on(event: 'input', listener: (msg: NodeMessage, send: SendFunction, done: DoneFunction) => void): void;
  on(event: 'close', listener: (removed: boolean, done: () => void) => void): void;
  status(status: NodeStatus): void;
  warn(message: unknown): void;
  /** Logs an error; with a message, hands it to Catch nodes as well. */
  error(message: unknown, msg?: NodeMessage): void;
  log(message: unknown): void;
  debug(message: unknown): void;
}

export interface HttpRequest {
  query: Record<string, unknown>;
  body: unknown;
  /** route parameters (`/x/:id`) */
  params?: Record<string, string | undefined>;
  /** the signed-in user, under adminAuth */
  user?: unknown;
  /** request headers, by lower-case name */
  headers?: Record<string, string | string[] | undefined>;
}

export interface HttpResponse {
  status(code: number): HttpResponse;
  set(header: string, value: string): HttpResponse;
  json(body: unknown): void;
  send(body: string): void;
}

export type RequestHandler = (req: HttpRequest, res: HttpResponse, next: () => void) => void;

export interface NodeAPI {
  /** The node set's message catalogue (its locales/), as the editor has it. */
  _?(key: string, substitutions?: Record<string, unknown>): string;
  nodes: {
    createNode(node: object, def: NodeDef): void;
    registerType<T extends Node>(
      type: string,
      definition: (this: T, def: NodeDef) => void,
      options?: { credentials?: Record<string, { type: 'text' | 'password' }> },
    ): void;
    getNode(id: string): Node | null;
  };
  util: {
    evaluateNodeProperty(
      value: unknown,
      type: string,
      node: Node,
      msg: NodeMessage | undefined,
      callback: (err: Error | null | undefined, result?: unknown) => void,
    ): void;
    getMessageProperty(msg: NodeMessage, expression: string): unknown;
    cloneMessage<T>(msg: T): T;
    generateId(): string;
  };
  httpAdmin: {
    get(path: string, ...handlers: RequestHandler[]): void;
    post(path: string, ...handlers: RequestHandler[]): void;
  };
  auth?: { needsPermission(permission: string): RequestHandler };
  /** the runtime's event bus ('flows:started', ...) */
  events?: { on(event: string, listener: (...args: unknown[]) => void): unknown };
  /** messages to every connected editor */
  comms?: { publish(topic: string, data: unknown, retain?: boolean): void };
  plugins?: { registerPlugin(id: string, definition: Record<string, unknown>): void };
}
