import type { MediaSpacesError } from '../../lib/errors';
import type { Node } from './node-red-types';

/**
 * The node's status badge across concurrent requests: a blue dot while any
 * request is in flight (with the count when there are several), then the
 * outcome of the last one to finish once none is left.
 */
export class RequestStatus {
  private inFlight = 0;

  constructor(private readonly node: Node) {}

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
    this.node.status({});
  }

  private finish(outcome: { fill: 'green' | 'red'; shape: 'dot' | 'ring'; text: string }): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight > 0) this.showRequesting();
    else this.node.status(outcome);
  }

  private showRequesting(): void {
    this.node.status({
      fill: 'blue',
      shape: 'dot',
      text: this.inFlight > 1 ? `requesting (${this.inFlight})` : 'requesting',
    });
  }
}
