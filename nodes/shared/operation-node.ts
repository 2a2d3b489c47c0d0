import type { z } from 'zod';
import type { MediaSpacesClient } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import type { Node, NodeAPI, NodeDef, NodeMessage } from './node-red-types';
import { handleOperation, type Outcome } from './operation';
import type { Area } from './server-client';
import { settingsOrError } from './settings';

/** What an operation node's perform() gets besides the message. */
export interface OperationContext<T> {
  RED: NodeAPI;
  node: Node;
  settings: T;
  client: MediaSpacesClient;
  signal: AbortSignal;
  /** Shows how a long request is going in the status while it runs. */
  progress(text: string): void;
}

export interface OperationNodeSpec<S extends z.ZodType> {
  /** Names the operation in messages about unexpected failures, e.g. "Submit job". */
  context: string;
  /** Which credential of the config node the operation needs. */
  area: Area;
  /** The node's settings schema; a bad setting fails every message with the reason, rather than the deploy. */
  settings: S;
  /** How the edit dialog names the settings, for errors about them. */
  labels?: Partial<Record<string, string>>;
  perform(msg: NodeMessage, ctx: OperationContext<z.infer<S>>): Promise<Outcome>;
}

/**
 * The body of an operation node's constructor, after RED.nodes.createNode:
 * settings read once per deploy, each message handled by handleOperation.
 * The constructor itself stays in the entry file, where tools such as
 * node-red-dev look for it.
 */
export function runOperationNode<S extends z.ZodType>(
  RED: NodeAPI,
  node: Node,
  def: NodeDef,
  spec: OperationNodeSpec<S>,
): void {
  const settings = settingsOrError(spec.settings, def, spec.labels);
  handleOperation(RED, node, {
    context: spec.context,
    area: spec.area,
    serverId: def.server,
    // not async: handleOperation catches a throw here like a rejection, and a promise less per message
    perform(msg, client, signal, progress) {
      if (settings instanceof MediaSpacesError) throw settings;
      return spec.perform(msg, { RED, node, settings, client, signal, progress });
    },
  });
}
