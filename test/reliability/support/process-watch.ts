/**
 * Records what would crash or warn a Node-RED process: unhandled promise
 * rejections, uncaught exceptions and process warnings (e.g. listener leaks),
 * between start() and stop().
 */
export class ProcessWatch {
  readonly unhandledRejections: unknown[] = [];
  readonly uncaughtExceptions: unknown[] = [];
  readonly warnings: string[] = [];

  private readonly onRejection = (reason: unknown) => this.unhandledRejections.push(reason);
  private readonly onException = (error: unknown) => this.uncaughtExceptions.push(error);
  private readonly onWarning = (warning: Error) => this.warnings.push(`${warning.name}: ${warning.message}`);

  start(): this {
    process.on('unhandledRejection', this.onRejection);
    process.on('uncaughtException', this.onException);
    process.on('warning', this.onWarning);
    return this;
  }

  stop(): void {
    process.off('unhandledRejection', this.onRejection);
    process.off('uncaughtException', this.onException);
    process.off('warning', this.onWarning);
  }

  /** Short descriptions, for assertion messages. */
  describe(): string[] {
    const show = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    return [
      ...this.unhandledRejections.map((e) => `unhandledRejection ${show(e)}`),
      ...this.uncaughtExceptions.map((e) => `uncaughtException ${show(e)}`),
    ];
  }
}
