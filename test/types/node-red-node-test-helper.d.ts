/** The parts of node-red-node-test-helper the node tests use (the package ships no types). */
declare module 'node-red-node-test-helper' {
  export interface HelperNode {
    id: string;
    type: string;
    on(event: 'input', listener: (msg: Record<string, unknown>) => void): void;
    on(event: string, listener: (...args: unknown[]) => void): void;
    removeListener(event: string, listener: (...args: unknown[]) => void): void;
    receive(msg: Record<string, unknown>): void;
    [key: string]: unknown;
  }

  export interface HelperResponse {
    status: number;
    body: unknown;
    /** supertest's response: lower-case header names, and the body as text */
    headers: Record<string, string | undefined>;
    text: string;
  }

  export interface HelperRequest extends PromiseLike<HelperResponse> {
    send(body: unknown): HelperRequest;
    set(header: string, value: string): HelperRequest;
    query(query: Record<string, string>): HelperRequest;
  }

  export type NodeModule = (RED: Record<string, unknown>) => void | Promise<void>;

  export interface NodeTestHelper {
    init(runtimePath: string, settings?: Record<string, unknown>): void;
    settings(settings: Record<string, unknown>): Record<string, unknown>;
    load(
      nodes: NodeModule | NodeModule[],
      flow: Record<string, unknown>[],
      credentials?: Record<string, Record<string, string>>,
    ): Promise<void>;
    setFlows(
      flow: Record<string, unknown>[],
      type?: 'full' | 'flows' | 'nodes',
      credentials?: Record<string, Record<string, string>>,
    ): Promise<void>;
    unload(): Promise<void>;
    /** The sinon spy on RED.log.log; each call's first argument is `{ level, msg, type, id }`. */
    log(): { args: Array<[{ level: number; msg: unknown; type?: string; id?: string }]> };
    getNode(id: string): HelperNode;
    request(): {
      get(path: string): HelperRequest;
      post(path: string): HelperRequest;
    };
  }

  const helper: NodeTestHelper;
  export default helper;
}
