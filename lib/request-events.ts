import diagnostics_channel from 'node:diagnostics_channel';

/**
 * One HTTP exchange with the service (each attempt of a call, retries
 * included), published on `media-spaces:request` for whoever monitors the
 * client (the package's Prometheus metrics, an APM). The transport builds an
 * event only while someone subscribes (`hasSubscribers`), so a client nobody
 * watches pays one property read per attempt.
 */
export interface RequestEvent {
  /** The operation as the client names it in errors, e.g. "Submit job". */
  operation: string;
  method: string;
  /** The HTTP status when an answer came back. */
  status?: number;
  /** The library's error code when none did (timeout, network_error, tls_error, aborted). */
  error?: string;
  /** Milliseconds from sending to the whole answer (or the failure). */
  duration: number;
  /** 1 for the first attempt of a call. */
  attempt: number;
}

export const requestEvents = diagnostics_channel.channel('media-spaces:request');
