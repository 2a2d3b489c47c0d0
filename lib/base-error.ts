/**
 * The base of every error the library throws: a short `code` to branch on, and `toJSON()` with
 * plain data for `msg.error` and logs (no stack, no cause). Each family adds its own codes:
 * MediaSpacesError (calls to the service and input checked before sending), WatchError,
 * CoordinationError, ScheduleConfigError, CronSyntaxError, DurationError and FixtureError.
 * Catch one family by its class, or any failure of the library by this one.
 *
 * Imports nothing: the editors bundle some of these errors for the browser.
 */
export abstract class MediaSpacesBaseError<Code extends string = string> extends Error {
  readonly code: Code;

  protected constructor(name: string, code: Code, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = name;
    this.code = code;
  }

  toJSON(): { name: string; code: Code; message: string } {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/** Whether a thrown value is a failure of the library, as opposed to a bug or a runtime's own error. */
export function isLibraryError(value: unknown): value is MediaSpacesBaseError {
  return value instanceof MediaSpacesBaseError;
}
