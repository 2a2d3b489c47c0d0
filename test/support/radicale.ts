import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

/**
 * Debian's radicale (a real CalDAV server) on a free loopback port, its storage in `storage`, no
 * authentication (a user name may still be sent: with `owner_only` rights collections belong to a principal;
 * `public` lets anyone, signed in or not, read and write, as a published calendar address is read). Resolves once it
 * listens.
 */
export async function startRadicale(
  storage: string,
  rights: 'owner_only' | 'public' = 'owner_only',
): Promise<{ child: ChildProcess; url: string }> {
  const rightsArgs = ['--rights-type', 'owner_only'];
  if (rights === 'public') {
    const file = `${storage}.rights`;
    writeFileSync(file, '[public]\nuser: .*\ncollection: .*\npermissions: RrWw\n');
    rightsArgs.splice(0, 2, '--rights-type', 'from_file', '--rights-file', file);
  }
  const child = spawn(
    'radicale',
    [
      '--config',
      '',
      '--server-hosts',
      '127.0.0.1:0',
      '--storage-filesystem-folder',
      storage,
      '--auth-type',
      'none',
      ...rightsArgs,
      '--logging-level',
      'info',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`radicale did not start:\n${log}`)), 15_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const port = /Listening on '\[127\.0\.0\.1\]:(\d+)'/.exec(log)?.[1];
      if (port && log.includes('Radicale server ready')) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`radicale exited with ${code}:\n${log}`));
    });
  });
  return { child, url };
}

/** One CalDAV request as `user`; resolves to the status. */
export async function caldav(
  base: string,
  method: string,
  pathname: string,
  body?: string,
  user = 'newsroom',
): Promise<number> {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${user}:unused`).toString('base64')}`,
      'content-type': 'text/calendar; charset=utf-8',
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}
