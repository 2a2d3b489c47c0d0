// Types of scripts/e2e-lib.mjs for the TypeScript browser tests.
export declare const PACKAGE_NAME: string;
export declare const NODE_TYPES: string[];
export declare const CHROMIUM_PATH: string;
export declare const CHROMIUM_ARGS: string[];

export interface PackReport {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}
export declare function freePort(host?: string): Promise<number>;
export declare function packTarball(
  root: string,
  destDir: string,
): { tarball: string; report: PackReport; bytes: number };
export declare function prepareUserDir(
  userDir: string,
  opts?: { tarball?: string; npmEnv?: NodeJS.ProcessEnv; settings?: { flowFile?: string; extra?: string } },
): void;
export declare function writeSettings(userDir: string, opts?: { flowFile?: string; extra?: string }): void;

export interface NodeRedHandle {
  url: string;
  port: number;
  pid: number | undefined;
  log(): string;
  stop(): Promise<void>;
}
export declare function startNodeRed(opts: {
  nodeBin?: string;
  redJs: string;
  userDir: string;
  port?: number;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}): Promise<NodeRedHandle>;
export declare function sleep(ms: number): Promise<void>;
export declare function waitFor<T>(
  fn: () => T | Promise<T>,
  opts?: { timeoutMs?: number; intervalMs?: number; what?: string },
): Promise<T>;
export declare function adminApi(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<{ status: number; json: unknown; text: string }>;
export declare function problemLines(log: string): string[];
export declare function readJson(path: string): unknown;
