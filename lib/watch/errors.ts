import { MediaSpacesBaseError } from '../base-error';

/** Outcomes of a watch that end it without an HTTP error behind them. */
export type WatchErrorCode =
  | 'timeout' // waited longer than the configured timeout
  | 'job_failed' // the job ended in state failed
  | 'job_stopped' // the job ended in state stopped
  | 'workflow_not_found' // no workflow with that id
  | 'workflow_deleted' // the awaited workflow has status deleted
  | 'workflow_archived'; // the awaited workflow has status archived

export interface WatchErrorInit {
  code: WatchErrorCode;
  message: string;
  /** Extra plain data (state, ids, status) copied into toJSON(). */
  details?: Record<string, unknown>;
}

/** The error a watch ends with when the service answered fine but the outcome is a failure. */
export class WatchError extends MediaSpacesBaseError<WatchErrorCode> {
  readonly details: Record<string, unknown>;

  constructor(init: WatchErrorInit) {
    super('WatchError', init.code, init.message);
    this.details = { ...init.details };
  }

  override toJSON(): { name: string; code: WatchErrorCode; message: string } & Record<string, unknown> {
    return { ...this.details, name: this.name, code: this.code, message: this.message };
  }
}
