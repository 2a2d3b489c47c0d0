import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import type { Dispatcher } from 'undici';
import { listFieldErrors, MediaSpacesError, tokenExpiredError } from './errors';
import { isNonBlankString, isPlainObject } from './guards';
import { readJob } from './job-read';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry';
import {
  checkBaseUrl,
  IDEMPOTENCY_KEY_RULE,
  isIdempotencyKey,
  isMaxResults,
  isWorkflowStatus,
  MAX_RESULTS_MAX,
  MAX_RESULTS_MIN,
  MAX_RESULTS_RULE,
  UUID_PATTERN,
  UUID_RULE,
  WORKFLOW_PREFIXES,
  WORKFLOW_STATUS_RULE,
} from './rules';
import type { Channel, Workflow, WorkflowInputs, WorkflowJob, WorkflowList } from './schemas';
import { schemas } from './schemas-lazy';
import type { ServiceClockReading } from './service-clock';
import { buildSubmitRequest, describeType } from './submit-input';
import { type ApiResponse, type HttpRequest, type RetryNotice, Transport } from './transport';
import { readWorkflowList } from './workflow-list-read';

export { WORKFLOW_PREFIXES };
export type WorkflowPrefix = (typeof WORKFLOW_PREFIXES)[number];

export interface ClientConfig {
  /** `{base_url}` of the description, without the `/workflow/v1` prefix. */
  workflowUrl: string;
  /** `{livecapture_base_url}`, without `/livecapture/v1`. */
  liveCaptureUrl?: string;
  spaceId: string;
  /** Static API key of the workflow area. */
  apiKey?: string;
  /**
   * OAuth 2.0 access token of the workflow area, from the implicit flow at `/auth/oauth2`
   * (see `readTokenFragment`). When set it is sent instead of `apiKey`.
   */
  workflowToken?: string;
  /**
   * When `workflowToken` expires (ms since the epoch, an ISO date or a Date; `expiresAt` of
   * `readTokenFragment`). Past it, calls fail with code `token_expired` without being sent.
   */
  workflowTokenExpiresAt?: number | string | Date;
  /** OAuth 2.0 bearer token of the live-capture area. */
  accessToken?: string;
  workflowPrefix?: WorkflowPrefix;
  liveCapturePrefix?: string;
  /** Per-attempt timeout in ms (default 30 000). */
  timeout?: number;
  connectTimeout?: number;
  /** Retries after the first attempt (default 3). */
  retries?: number;
  retryPolicy?: Partial<RetryPolicy>;
  /** Query parameter names the description leaves open. */
  pageTokenParam?: string;
  statusParam?: string;
  /** Job-status path (an extension used for polling), relative to the workflow prefix. */
  jobStatusPath?: string;
  /** Get-channel path (an extension used to show a channel's state), relative to the live-capture prefix. */
  channelPath?: string;
  /**
   * Stop-recording path (an extension: the description does not show how a recording ends),
   * relative to the live-capture prefix.
   */
  stopChannelPath?: string;
  /** Fields read, in order, for a channel's state. */
  channelStateFields?: string[];
  /** TLS certificate verification (default on). */
  rejectUnauthorized?: boolean;
  userAgent?: string;
  dispatcher?: Dispatcher;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Retries of this call, instead of the client's setting. A poller passes 0:
   * it reads again at its next interval anyway, and a retry inside the
   * interval would be a second request for the same thing.
   */
  retries?: number;
  /**
   * Epoch ms: retryable failures are tried again until then (capped backoff)
   * instead of `retries` times; a schedule's start passes its window's end.
   */
  deadline?: number;
  /** Told of each failed attempt that will be tried again (for a status such as "attempt 4: 503"). */
  onRetry?: (notice: RetryNotice) => void;
}

export interface PostOptions extends CallOptions {
  /** Sent as Idempotency-Key; a random one is used when omitted. */
  idempotencyKey?: string;
}

export interface ListWorkflowsOptions extends CallOptions {
  status?: string;
  maxResults?: number;
  pageToken?: string;
}

export interface SubmitJobOptions extends PostOptions {
  /** Inputs from the node's settings, merged under the request. */
  base?: unknown;
  /**
   * The workflow's declared inputs: typecodes of values that give none, and a check before
   * sending that every required variable, media nickname, attachment and label is present.
   */
  declared?: WorkflowInputs;
  jobName?: string;
}

/** Longest continuation token sent back (in the query string, where servers refuse long URLs). */
const MAX_PAGE_TOKEN = 4096;

const DEFAULT_JOB_STATUS_PATH = '/{space_id}/workflows/{workflow_id}/jobs/{job_id}';
const DEFAULT_CHANNEL_PATH = '/{space_id}/channels/{channel_id}';
const DEFAULT_STOP_CHANNEL_PATH = '/{space_id}/channels/{channel_id}/stop';

/** Half of a UTF-16 surrogate pair without its other half: text with no UTF-8 form. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Typed client of the workflow and live-capture areas of one space. */
export class MediaSpacesClient {
  private readonly transport: Transport;
  // a #private field: credentials stay out of JSON.stringify, util.inspect and logs
  readonly #config: Required<
    Pick<ClientConfig, 'workflowPrefix' | 'liveCapturePrefix' | 'pageTokenParam' | 'statusParam' | 'jobStatusPath'>
  > &
    ClientConfig;
  #space: string | undefined;

  constructor(config: ClientConfig) {
    if (config === null || typeof config !== 'object') throw MediaSpacesError.invalidInput('config must be an object');
    const workflowPrefix = config.workflowPrefix ?? '/workflow/v1';
    if (!WORKFLOW_PREFIXES.includes(workflowPrefix)) {
      throw MediaSpacesError.invalidInput(`workflowPrefix must be one of ${WORKFLOW_PREFIXES.join(', ')}`, {
        workflowPrefix: 'unknown prefix',
      });
    }
    this.#config = {
      ...config,
      workflowPrefix,
      liveCapturePrefix: config.liveCapturePrefix ?? '/livecapture/v1',
      pageTokenParam: config.pageTokenParam || 'page_token',
      statusParam: config.statusParam || 'status',
      jobStatusPath: config.jobStatusPath || DEFAULT_JOB_STATUS_PATH,
    };
    if (config.workflowTokenExpiresAt !== undefined && expiryOf(config.workflowTokenExpiresAt) === undefined) {
      throw MediaSpacesError.invalidInput(
        `workflowTokenExpiresAt must be a time (ms since the epoch, an ISO date or a Date), got ${describeType(config.workflowTokenExpiresAt)}`,
        { workflowTokenExpiresAt: 'is not a time' },
      );
    }
    const timeoutMs = positive(config.timeout, 30_000);
    this.transport = new Transport({
      timeoutMs,
      connectTimeoutMs: positive(config.connectTimeout, Math.min(timeoutMs, 10_000)),
      retry: {
        ...DEFAULT_RETRY_POLICY,
        ...config.retryPolicy,
        retries: Math.max(0, Math.floor(config.retries ?? config.retryPolicy?.retries ?? DEFAULT_RETRY_POLICY.retries)),
      },
      rejectUnauthorized: config.rejectUnauthorized ?? true,
      userAgent: config.userAgent ?? 'media-spaces-node-red',
      dispatcher: config.dispatcher,
    });
  }

  // ------------------------------------------------------------ workflow area

  /** One page of the space's workflows. */
  async listWorkflows(options: ListWorkflowsOptions = {}): Promise<ApiResponse<WorkflowList>> {
    const query = new URLSearchParams();
    if (options.maxResults !== undefined) {
      const n = options.maxResults;
      if (!isMaxResults(n)) {
        throw MediaSpacesError.invalidInput(`max_results ${MAX_RESULTS_RULE}, got ${describeType(n)}`, {
          max_results: `must be between ${MAX_RESULTS_MIN} and ${MAX_RESULTS_MAX}`,
        });
      }
      query.set('max_results', String(n));
    }
    if (options.status !== undefined && options.status !== '') {
      if (!isWorkflowStatus(options.status)) {
        throw MediaSpacesError.invalidInput(`status ${WORKFLOW_STATUS_RULE}, got ${describeType(options.status)}`, {
          status: WORKFLOW_STATUS_RULE,
        });
      }
      query.set(this.#config.statusParam, options.status);
    }
    if (options.pageToken !== undefined && options.pageToken !== '') {
      if (typeof options.pageToken !== 'string') {
        throw MediaSpacesError.invalidInput(`page_token must be text, got ${describeType(options.pageToken)}`, {
          page_token: 'must be a string',
        });
      }
      // a token the service issued is short; a huge one would only come back as 414 or 431
      if (options.pageToken.length > MAX_PAGE_TOKEN) {
        throw MediaSpacesError.invalidInput(
          `page_token is ${options.pageToken.length} characters long, more than ${MAX_PAGE_TOKEN}: not a token the service issued`,
          { page_token: `must be at most ${MAX_PAGE_TOKEN} characters` },
        );
      }
      // URLSearchParams would silently send U+FFFD for a lone surrogate: another token than the one given
      if (LONE_SURROGATE.test(options.pageToken)) {
        throw MediaSpacesError.invalidInput(
          'page_token is not valid Unicode text (it holds half of a character pair)',
          {
            page_token: 'is not valid Unicode text',
          },
        );
      }
      query.set(this.#config.pageTokenParam, options.pageToken);
    }
    const qs = query.toString();
    return this.workflowCall(
      'GET',
      `/${this.space()}/workflows${qs ? `?${qs}` : ''}`,
      'List workflows',
      readWorkflowList,
      options,
    );
  }

  /** Every page, following next_page_token until the service stops giving one. */
  async *pages(options: Omit<ListWorkflowsOptions, 'pageToken'> = {}): AsyncGenerator<WorkflowList> {
    let pageToken: string | undefined;
    const seen = new Set<string>();
    do {
      const { data } = await this.listWorkflows({ ...options, pageToken });
      yield data;
      pageToken = data.next_page_token ?? undefined;
      if (pageToken !== undefined) {
        if (seen.has(pageToken)) {
          throw new MediaSpacesError({
            code: 'invalid_response',
            message: 'List workflows: the service returned the same next_page_token twice; stopping to avoid a loop',
          });
        }
        seen.add(pageToken);
      }
    } while (pageToken);
  }

  /** Async iterator over every workflow of the space, across all pages. */
  async *workflows(options: Omit<ListWorkflowsOptions, 'pageToken'> = {}): AsyncGenerator<Workflow> {
    for await (const page of this.pages(options)) yield* page.workflows;
  }

  async listAllWorkflows(options: Omit<ListWorkflowsOptions, 'pageToken'> = {}): Promise<Workflow[]> {
    const all: Workflow[] = [];
    for await (const page of this.pages(options)) all.push(...page.workflows);
    return all;
  }

  /** Submits a job; the request may be in the description's shape or the short form. */
  submitJob(workflowId: string, request: unknown, options: SubmitJobOptions = {}): Promise<ApiResponse<WorkflowJob>> {
    // not async: an async function returning the transport's promise costs three more turns of
    // the microtask queue per submission; a refusal before sending is still a rejection, not a throw
    try {
      const wf = uuidSegment(workflowId, 'workflow_id');
      const body = buildSubmitRequest(request, {
        base: options.base,
        declared: options.declared,
        jobName: options.jobName,
        requireDeclared: true,
      });
      return this.workflowCall('POST', `/${this.space()}/workflows/${wf}/jobs`, 'Submit job', readJob, {
        ...options,
        body,
        idempotencyKey: idempotencyKeyOf(options),
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Reads a job's current state (an extension beyond the described operations, used for polling). */
  async getJob(workflowId: string, jobId: string, options: CallOptions = {}): Promise<ApiResponse<WorkflowJob>> {
    const path = this.#config.jobStatusPath
      .replace('{space_id}', this.space())
      .replace('{workflow_id}', uuidSegment(workflowId, 'workflow_id'))
      .replace('{job_id}', idSegment(jobId, 'job_id'));
    return this.workflowCall('GET', path, 'Get job', readJob, options);
  }

  /** Reads one workflow with its declared inputs, where the service offers it (an extension). */
  async getWorkflow(
    workflowId: string,
    options: CallOptions = {},
  ): Promise<ApiResponse<Workflow & { inputs?: WorkflowInputs }>> {
    const wf = uuidSegment(workflowId, 'workflow_id');
    return this.workflowCall(
      'GET',
      `/${this.space()}/workflows/${wf}`,
      'Get workflow',
      (b) => {
        const parsed = (b ?? {}) as Record<string, unknown>;
        const inputs = parsed.inputs === undefined ? undefined : schemas().WorkflowInputs.parse(parsed.inputs);
        return { ...(parsed as Workflow), inputs };
      },
      options,
    );
  }

  // ------------------------------------------------------------ live capture

  async createChannel(request: unknown, options: PostOptions = {}): Promise<ApiResponse<Channel>> {
    const { ChannelCreateRequest, describeIssues } = schemas();
    const parsed = ChannelCreateRequest.safeParse(request);
    const fieldErrors = parsed.success ? {} : describeIssues(parsed.error);
    // "Which create-request fields are required: not shown"; the simulator requires a name (a nameless
    // channel is useless to an operator), and the client refuses first what it would refuse
    // (a Map or a Date passes zod's object check, and has no name either)
    if (isPlainObject(request) ? request.name === undefined : parsed.success) fieldErrors.name = 'name is required';
    if (!parsed.success || Object.keys(fieldErrors).length > 0) {
      throw MediaSpacesError.invalidInput(`Invalid channel request: ${listFieldErrors(fieldErrors)}`, fieldErrors);
    }
    return this.liveCall('POST', `/${this.space()}/channels`, 'Create channel', (b) => schemas().Channel.parse(b), {
      ...options,
      body: parsed.data,
      idempotencyKey: idempotencyKeyOf(options),
    });
  }

  /** Reads a channel (an extension beyond the described operations, used for polling). */
  async getChannel(channelId: string, options: CallOptions = {}): Promise<ApiResponse<Channel>> {
    const path = (this.#config.channelPath || DEFAULT_CHANNEL_PATH)
      .replace('{space_id}', this.space())
      .replace('{channel_id}', uuidSegment(channelId, 'channel_id'));
    return this.liveCall('GET', path, 'Get channel', (b) => schemas().Channel.parse(b), options);
  }

  /**
   * Stops a channel's recording (an extension beyond the described operations):
   * the channel finishes its recording (FINISHING_RECORDING), then is INACTIVE
   * with its outputs final. Stopping a finished channel again is harmless.
   */
  async stopChannel(channelId: string, options: PostOptions = {}): Promise<ApiResponse<Channel>> {
    const path = (this.#config.stopChannelPath || DEFAULT_STOP_CHANNEL_PATH)
      .replace('{space_id}', this.space())
      .replace('{channel_id}', uuidSegment(channelId, 'channel_id'));
    return this.liveCall('POST', path, 'Stop recording', (b) => schemas().Channel.parse(b), {
      ...options,
      idempotencyKey: idempotencyKeyOf(options),
    });
  }

  async deleteEvent(eventId: string, options: CallOptions = {}): Promise<ApiResponse<unknown>> {
    const id = idSegment(eventId, 'event_id');
    return this.liveCall('DELETE', `/${this.space()}/events/${id}`, 'Delete event', (b) => b ?? null, options);
  }

  /** The channel's state, read from the configured fields (`state`, then `status`). */
  channelState(channel: Record<string, unknown>): string | undefined {
    for (const field of this.#config.channelStateFields ?? ['state', 'status']) {
      const value = channel[field];
      if (typeof value === 'string') return value;
    }
    return undefined;
  }

  /** When the configured workflow token expires (ms since the epoch), if known. */
  get workflowTokenExpiresAt(): number | undefined {
    return this.#config.workflowToken ? expiryOf(this.#config.workflowTokenExpiresAt) : undefined;
  }

  /**
   * How far the live-capture area's clock (which times recordings) is from this host's, once its answers'
   * `Date` headers settle it (lib/service-clock.ts); undefined before.
   */
  liveCaptureClock(): ServiceClockReading | undefined {
    const base = this.#config.liveCaptureUrl || this.#config.workflowUrl;
    return base ? this.transport.serviceClock(base) : undefined;
  }

  /** What a log or JSON.stringify may show of the client: never its credentials. */
  toJSON(): Record<string, unknown> {
    return {
      workflowUrl: this.#config.workflowUrl,
      liveCaptureUrl: this.#config.liveCaptureUrl,
      spaceId: this.#config.spaceId,
      workflowPrefix: this.#config.workflowPrefix,
      apiKey: this.#config.apiKey ? '[redacted]' : undefined,
      workflowToken: this.#config.workflowToken ? '[redacted]' : undefined,
      accessToken: this.#config.accessToken ? '[redacted]' : undefined,
    };
  }

  [inspect.custom](): string {
    return `MediaSpacesClient ${JSON.stringify(this.toJSON())}`;
  }

  /** Aborts in-flight requests and releases the connection pool. */
  close(): Promise<void> {
    return this.transport.close();
  }

  // ------------------------------------------------------------ plumbing

  private space(): string {
    // checked on first use, not at construction, so a bad space id fails the call that needs it
    this.#space ??= uuidSegment(this.#config.spaceId, 'space_id');
    return this.#space;
  }

  private workflowCall<T>(
    method: HttpRequest['method'],
    path: string,
    context: string,
    parse: (b: unknown) => T,
    options: CallOptions & { body?: unknown; idempotencyKey?: string },
  ): Promise<ApiResponse<T>> {
    const url = joinUrl(this.#config.workflowUrl, 'workflowUrl', this.#config.workflowPrefix, path);
    const credential = this.workflowCredential(context);
    return this.transport.send({ method, url, credential, context, ...options }, parse);
  }

  private liveCall<T>(
    method: HttpRequest['method'],
    path: string,
    context: string,
    parse: (b: unknown) => T,
    options: CallOptions & { body?: unknown; idempotencyKey?: string },
  ): Promise<ApiResponse<T>> {
    const base = this.#config.liveCaptureUrl || this.#config.workflowUrl;
    const url = joinUrl(base, 'liveCaptureUrl', this.#config.liveCapturePrefix, path);
    const credential = this.#config.accessToken;
    // "Every request carries the header Authorization: Bearer <ACCESS_TOKEN>": one without it is refused unsent
    if (!isNonBlankString(credential)) {
      throw MediaSpacesError.invalidInput(
        `${context} not sent: no access token configured for the live-capture area (set accessToken)`,
        { accessToken: 'is required' },
      );
    }
    return this.transport.send({ method, url, credential, context, ...options }, parse);
  }

  /** The workflow area's bearer credential: the signed-in token when there is one, else the API key. */
  private workflowCredential(context: string): string {
    const { workflowToken, apiKey } = this.#config;
    if (isNonBlankString(workflowToken)) {
      const expiresAt = expiryOf(this.#config.workflowTokenExpiresAt);
      if (expiresAt !== undefined && Date.now() >= expiresAt) throw tokenExpiredError(context, expiresAt);
      return workflowToken;
    }
    // "Every request carries the header Authorization: Bearer <API_KEY>": one without it is refused unsent
    if (!isNonBlankString(apiKey)) {
      throw MediaSpacesError.invalidInput(
        `${context} not sent: no API key configured for the workflow area (set apiKey, or sign in for a workflowToken)`,
        { apiKey: 'is required' },
      );
    }
    return apiKey;
  }
}

export function createClient(config: ClientConfig): MediaSpacesClient {
  return new MediaSpacesClient(config);
}

function expiryOf(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : value;
  return typeof ms === 'number' && Number.isFinite(ms) ? ms : undefined;
}

function positive(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

function idempotencyKeyOf(options: PostOptions): string {
  const key = options.idempotencyKey;
  if (key === undefined) return randomUUID();
  if (!isIdempotencyKey(key)) {
    throw MediaSpacesError.invalidInput(`Idempotency-Key ${IDEMPOTENCY_KEY_RULE}`, {
      idempotency_key: 'invalid',
    });
  }
  return key;
}

/** A path id that must be a UUID; checked before anything is sent. */
export function uuidSegment(value: unknown, name: string): string {
  if (typeof value !== 'string' || !UUID_PATTERN.test(value)) {
    throw MediaSpacesError.invalidInput(`${name} ${UUID_RULE}, got ${describeType(value)}`, {
      [name]: 'must be a UUID',
    });
  }
  return value;
}

/** A free-form path id, encoded so that it can never change the request path. */
export function idSegment(value: unknown, name: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  if (typeof value !== 'string' || value.trim() === '') {
    throw MediaSpacesError.invalidInput(`${name} is required and must be text, got ${describeType(value)}`, {
      [name]: 'is required',
    });
  }
  if (value.length > 256) {
    throw MediaSpacesError.invalidInput(`${name} is longer than 256 characters`, { [name]: 'too long' });
  }
  if (value === '.' || value === '..') {
    throw MediaSpacesError.invalidInput(`${name} cannot be "${value}"`, { [name]: 'is a relative path segment' });
  }
  try {
    return encodeURIComponent(value);
  } catch {
    // URIError: a lone surrogate (half of a UTF-16 pair) has no UTF-8 form
    throw MediaSpacesError.invalidInput(`${name} is not valid Unicode text (it holds half of a character pair)`, {
      [name]: 'is not valid Unicode text',
    });
  }
}

/**
 * Base URLs already checked, and the root each one gives (origin and path,
 * without a trailing slash). Parsing a URL on every request was a visible
 * share of the client's CPU and heap per request (bench/README.md).
 */
const checkedBases = new Map<string, string>();

function joinUrl(base: unknown, name: string, prefix: string, path: string): string {
  if (typeof base === 'string') {
    const root = checkedBases.get(base);
    if (root !== undefined) return `${root}${prefix}${path}`;
  }
  if (typeof base !== 'string' || base.trim() === '') {
    throw MediaSpacesError.invalidInput(`${name} is not set: give the service's base URL`, { [name]: 'is required' });
  }
  const checked = checkBaseUrl(base);
  if (!checked.ok) {
    if (checked.problem === 'is not a valid URL') {
      throw MediaSpacesError.invalidInput(`${name} "${base}" is not a valid URL`, { [name]: 'is not a URL' });
    }
    throw MediaSpacesError.invalidInput(`${name} ${checked.problem}`, { [name]: 'unsupported scheme' });
  }
  const url = checked.url;
  const root = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  if (checkedBases.size >= 64) checkedBases.clear();
  checkedBases.set(base, root);
  return `${root}${prefix}${path}`;
}
