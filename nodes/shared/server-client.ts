import type { MediaSpacesClient } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import type { Node, NodeAPI } from './node-red-types';

/** Which credential an operation needs: the API key or the live-capture token. */
export type Area = 'workflow' | 'liveCapture';

/** What an operation node sees of its config node: the shared client, nothing secret. */
export interface ClientProvider {
  getClient(area?: Area): MediaSpacesClient;
}

function isClientProvider(node: unknown): node is ClientProvider {
  return typeof (node as Partial<ClientProvider> | null)?.getClient === 'function';
}

/** The shared client of the config node an operation node points at, or a clear error. */
export function clientFor(RED: NodeAPI, serverId: unknown, area: Area): MediaSpacesClient {
  if (typeof serverId !== 'string' || serverId === '') {
    throw MediaSpacesError.invalidInput('No Media Spaces config selected: choose a server in the node', {
      server: 'is required',
    });
  }
  const server: Node | null = RED.nodes.getNode(serverId);
  if (!isClientProvider(server)) {
    throw MediaSpacesError.invalidInput(
      `The Media Spaces config ${serverId} is not deployed or not a media-spaces-config node`,
      { server: 'not found' },
    );
  }
  return server.getClient(area);
}
