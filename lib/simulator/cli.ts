#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { Simulator, SimulatorInfo } from './simulator';

const USAGE = `Usage: media-spaces-sim [options]

Runs the Media Spaces reference simulator (workflow and live-capture areas).

Options:
  --port N        port to listen on (default 8787; 0 picks a free port)
  --host ADDR     address to listen on (default 127.0.0.1)
  --fixture FILE  YAML fixture with spaces, keys and workflows (default: the demo fixture)
  --json          print the URLs and credentials as one JSON line on stdout, nothing else
  --help          show this help
`;

const DEFAULT_PORT = 8787;

interface CliArgs {
  port: number;
  host: string;
  fixture?: string;
  json: boolean;
}

/** Exit code 2 and a message for anything wrong with the flags, as usual for CLIs. */
function parse(argv: string[]): CliArgs | { exit: number; message?: string; stdout?: string } {
  let values: { port?: string; host?: string; fixture?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        fixture: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    // parseArgs explains positional escapes at length; the first sentence is the useful part.
    const first = (err as Error).message.split('. ')[0].replace(/\.$/, '');
    return { exit: 2, message: `media-spaces-sim: ${first}\n\n${USAGE}` };
  }
  if (values.help) return { exit: 0, stdout: USAGE };
  let port = DEFAULT_PORT;
  if (values.port !== undefined) {
    port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN;
    if (!(port >= 0 && port <= 65535)) {
      return {
        exit: 2,
        message: `media-spaces-sim: --port must be a whole number from 0 to 65535, got "${values.port}"\n`,
      };
    }
  }
  if (values.host !== undefined && values.host.trim() === '') {
    return { exit: 2, message: 'media-spaces-sim: --host must not be empty\n' };
  }
  if (values.fixture !== undefined && values.fixture.trim() === '') {
    return { exit: 2, message: 'media-spaces-sim: --fixture needs a file path\n' };
  }
  return { port, host: values.host ?? '127.0.0.1', fixture: values.fixture, json: values.json === true };
}

function describe(info: SimulatorInfo, names: Map<string, string>): string {
  const lines = [
    'Media Spaces simulator is running',
    `  workflow area   ${info.workflow_url}  (paths under /workflow/v1 or /workflow/api/v1)`,
    `  live capture    ${info.livecapture_url}  (paths under /livecapture/v1)`,
    `  admin API       ${info.admin_url}`,
    `  OAuth sign-in   ${info.authorization_url}  (implicit flow; users are in the fixture)`,
    '',
    'Spaces:',
  ];
  for (const s of info.spaces) {
    const name = names.get(s.space_id);
    lines.push(`  ${s.space_id}${name ? `  ${name}` : ''}  (subscription ${s.subscription})`);
    lines.push(`    API key, admin        ${s.api_keys.admin ?? '-'}`);
    lines.push(`    API key, management   ${s.api_keys.management ?? '-'}`);
    lines.push(`    API key, access       ${s.api_keys.access ?? '-'}`);
    lines.push(`    access token          ${s.access_token ?? '-'}`);
  }
  lines.push('', 'Press Ctrl+C to stop.', '');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<void> {
  const args = parse(argv);
  if ('exit' in args) {
    if (args.stdout) process.stdout.write(args.stdout);
    if (args.message) process.stderr.write(args.message);
    process.exitCode = args.exit;
    return;
  }
  // Loaded only now, so that --help and flag errors answer without loading the whole simulator.
  const { FixtureError, loadFixture } = await import('./fixture');
  const { startSimulator } = await import('./simulator');

  // Handlers go in before anything is printed: a supervisor may signal as soon as it reads the first line.
  let sim: Simulator | undefined;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const closing = sim ? sim.close() : Promise.resolve();
    closing.then(
      () => process.exit(0),
      () => process.exit(0),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  try {
    sim = await startSimulator({ port: args.port, host: args.host, fixture: args.fixture });
  } catch (err) {
    const message = err instanceof FixtureError ? err.message : `cannot start: ${(err as Error).message}`;
    process.stderr.write(`media-spaces-sim: ${message}\n`);
    process.exit(1);
  }
  if (stopping) {
    // A signal came while starting: the server is up now, so close it and leave.
    await sim.close();
    process.exit(0);
  }
  const info = sim.info();
  if (args.json) process.stdout.write(`${JSON.stringify(info)}\n`);
  else {
    // Names are not part of the --json contract; read them for the human-readable banner only.
    const names = new Map(loadFixture(args.fixture).spaces.map((s) => [s.space_id, s.name]));
    process.stdout.write(describe(info, names));
  }
}

void main(process.argv.slice(2));
