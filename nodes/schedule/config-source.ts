import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MediaSpacesError } from '../../lib/errors';
import {
  formatIssue,
  isValidTimeZone,
  type ParseResult,
  parseScheduleObject,
  parseScheduleYaml,
  type ScheduleConfig,
  ScheduleConfigError,
  systemTimeZone,
} from '../../lib/schedule';
import type { ScheduleSettings } from './settings';

/** What Catch nodes get with a configuration problem. */
interface ConfigProblem {
  source: ScheduleSettings['source'];
  file: string | undefined;
  issues: string[];
}

/**
 * The schedule's windows from their source (inline YAML, a YAML file, or the
 * editor's list). A failed load keeps the previous windows: a typo saved in
 * a watched file must not stop the recordings already planned.
 */
export class ConfigSource {
  readonly filePath: string;
  config: ScheduleConfig = { timezone: systemTimeZone(), windows: [] };
  /** the last load's failure, cleared by a successful load */
  error: MediaSpacesError | undefined;
  private listener: ((curr: fs.Stats, prev: fs.Stats) => void) | undefined;

  constructor(
    private readonly settings: ScheduleSettings,
    userDir: string | undefined,
  ) {
    this.filePath = settings.file ? path.resolve(userDir ?? process.cwd(), settings.file) : '';
  }

  /** Loads the schedule; on failure keeps the previous windows and returns the error. */
  load(): MediaSpacesError | undefined {
    const result = this.read();
    if (!result.ok) {
      this.error = new ScheduleConfigError(result.issues, this.name());
      return this.error;
    }
    this.error = undefined;
    this.config = result.config;
    return undefined;
  }

  problem(error: MediaSpacesError): ConfigProblem {
    return {
      source: this.settings.source,
      file: this.filePath || undefined,
      issues: error instanceof ScheduleConfigError ? error.issues.map(formatIssue) : [error.message],
    };
  }

  /** Calls `changed` when the schedule file changes (file source only). */
  watch(changed: () => void): void {
    if (this.settings.source !== 'file' || !this.filePath) return;
    this.listener = (curr, prev) => {
      if (curr.mtimeMs === prev.mtimeMs && curr.size === prev.size && curr.ino === prev.ino) return;
      changed();
    };
    fs.watchFile(this.filePath, { interval: this.settings.watchInterval, persistent: false }, this.listener);
  }

  close(): void {
    if (this.listener) fs.unwatchFile(this.filePath, this.listener);
    this.listener = undefined;
  }

  private read(): ParseResult {
    const { timezone, source } = this.settings;
    if (timezone && !isValidTimeZone(timezone)) {
      return {
        ok: false,
        issues: [{ path: 'timezone', message: `"${timezone}" (node setting) is not an IANA time zone` }],
      };
    }
    const options = { defaultTimezone: timezone };
    if (source === 'file') return this.readFile(options);
    if (source === 'editor') {
      const windows = Array.isArray(this.settings.windows) ? this.settings.windows : [];
      return parseScheduleObject({ windows }, options);
    }
    return parseScheduleYaml(this.settings.yaml, options);
  }

  private readFile(options: { defaultTimezone: string | undefined }): ParseResult {
    if (!this.filePath) return { ok: false, issues: [{ path: 'file', message: 'no schedule file set in the node' }] };
    let text: string;
    try {
      text = fs.readFileSync(this.filePath, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return {
        ok: false,
        issues: [{ path: 'file', message: `cannot read ${this.filePath}${code ? ` (${code})` : ''}` }],
      };
    }
    return parseScheduleYaml(text, options);
  }

  private name(): string {
    if (this.settings.source === 'file') return `Schedule file ${this.filePath || '(none)'}`;
    if (this.settings.source === 'editor') return 'Schedule (editor list)';
    return 'Schedule YAML';
  }
}
