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

  /** A request in flight says how it is going ("starting, attempt 4: 503 …"), until it ends. */
  progress(text: string): void {
    if (this.inFlight === 0) return;
    this.board.set({
      fill: 'yellow',
      shape: 'ring',
      text: this.inFlight > 1 ? `${text} (+${this.inFlight - 1})` : text,
    });
  }

  succeeded(text: string): void {
    this.finish({ fill: 'green', shape: 'dot', text });
  }

  failed(error: MediaSpacesError): void {
    this.finish({ fill: 'red', shape: 'ring', text: failureStatus(error) });
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
    this.board.set(this.requesting);
  }

  /** Built when the badge is updated (at most every 250 ms), with the count at that moment. */
  private readonly requesting = (): NodeStatus => ({
    fill: 'blue',
    shape: 'dot',
    text: this.inFlight > 1 ? `requesting (${this.inFlight})` : 'requesting',
  });
}

/** What went wrong in a few words for the badge ("401: key not accepted"); msg.error has the whole sentence. */
export function failureStatus(error: MediaSpacesError): string {
  const fields = Object.keys(error.fieldErrors).length;
  const count = (what: string) => `${fields} ${what}${fields === 1 ? '' : 's'} invalid`;
  switch (error.code) {
    case 'token_expired':
      return 'sign-in expired';
    case 'unauthorized':
      return /scope/i.test(error.message) ? '401: key lacks scope' : '401: key not accepted';
    case 'subscription_inactive':
      return '403: subscription inactive';
    case 'not_found':
      return '404: not found';
    case 'invalid_request':
      return fields > 0 ? `400: ${count('field')}` : '400: request refused';
    case 'invalid_options':
      return refusedOptions(error);
    case 'conflict':
      return '409: conflict';
    case 'rate_limited':
      return '429: too many requests';
    case 'server_error':
      return `${error.status ?? 5}: service failed`;
    case 'http_error':
      return `HTTP ${error.status ?? '?'}`;
    case 'invalid_input': {
      const first = Object.keys(error.fieldErrors)[0];
      if (fields > 1) return count('input');
      return first ? `invalid ${first.length > 30 ? `${first.slice(0, 29)}…` : first}` : 'invalid input';
    }
    case 'invalid_response':
      return 'unexpected answer';
    case 'network_error':
      return 'cannot connect';
    case 'tls_error':
      return 'TLS failure';
    default:
      return error.code;
  }
}

/**
 * A 422 names what the service refused: the workflow itself (archived, idle, deleted: "422:
 * workflow archived"), else the inputs at fault; the service answers both as field errors.
 */
function refusedOptions(error: MediaSpacesError): string {
  const state = /\bworkflow\b[^;]*?\bis (archived|idle|deleted|not active)\b/i.exec(error.message)?.[1];
  if (state) return `422: workflow ${state.toLowerCase()}`;
  const inputs = Object.keys(error.fieldErrors).filter((field) => field !== 'workflow_id').length;
  if (inputs > 0) return `422: ${inputs} input${inputs === 1 ? '' : 's'} invalid`;
  return Object.hasOwn(error.fieldErrors, 'workflow_id') ? '422: workflow refused' : '422: options refused';
}
