import type { MediaSpacesError } from '../../lib/errors';
import type { Node, NodeStatus } from './node-red-types';
import { StatusBoard } from './status-board';

/**
 * The node's status badge across concurrent requests: a blue dot while any
 * request is in flight (with the count when there are several), then the
 * outcome of the last one to finish once none is left.
 */
export class RequestStatus {
  private inFlight = 0;
  private readonly board: StatusBoard;

  constructor(node: Node) {
    this.board = new StatusBoard(node);
  }

  started(): void {
    this.inFlight++;
    this.showRequesting();
  }

  succeeded(text: string): void {
    this.finish({ fill: 'green', shape: 'dot', text });
  }

  failed(error: MediaSpacesError): void {
    const text = error.status === undefined ? error.code : `${error.status} ${error.code}`;
    this.finish({ fill: 'red', shape: 'ring', text });
  }

  clear(): void {
    this.inFlight = 0;
    this.board.close();
  }

  private finish(outcome: NodeStatus): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight > 0) this.showRequesting();
    else this.board.set(outcome);
  }

  private showRequesting(): void {
    this.board.set({
      fill: 'blue',
      shape: 'dot',
      text: this.inFlight > 1 ? `requesting (${this.inFlight})` : 'requesting',
    });
  }
}
