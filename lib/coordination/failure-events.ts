import diagnostics_channel from 'node:diagnostics_channel';
import type { CoordinationError } from './errors';

/** A Redis command of the coordination that failed (Redis down, timed out, refused); not one cut short by close. */
interface CoordinationFailureEvent {
  code: CoordinationError['code'];
  /** the command's name (EVALSHA for the claim scripts) */
  command: string;
}

export const coordinationFailures = diagnostics_channel.channel('media-spaces:coordination-failure');

export function reportCoordinationFailure(error: CoordinationError, command: string): void {
  if (error.code !== 'closed' && coordinationFailures.hasSubscribers) {
    coordinationFailures.publish({ code: error.code, command } satisfies CoordinationFailureEvent);
  }
}
