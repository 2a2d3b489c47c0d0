import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Debian's radicale (a CalDAV server) on a free loopback port, its storage in
 * `dir`. Without `users` it asks for no password (a user name is still sent:
 * CalDAV collections belong to a principal); with them it checks HTTP basic
 * against a plain htpasswd file written in `dir`.
 */
export async function startRadicale(
  dir: string,
  users?: Record<string, string>,
  /** public: anyone, signed in or not, reads and writes (as a published calendar address is read) */
  rights: 'owner_only' | 'public' = 'owner_only',
): Promise<{ child: ChildProcess; url: string }> {
  const rightsArgs = ['--rights-type', 'owner_only'];
  if (rights === 'public') {
    const file = path.join(dir, 'rights');
    writeFileSync(file, '[public]\nuser: .*\ncollection: .*\npermissions: RrWw\n');
    rightsArgs.splice(0, 2, '--rights-type', 'from_file', '--rights-file', file);
  }
  const auth = users
    ? (() => {
        const file = path.join(dir, 'htpasswd');
        writeFileSync(
          file,
          Object.entries(users)
            .map(([u, p]) => `${u}:${p}\n`)
            .join(''),
        );
        return ['--auth-type', 'htpasswd', '--auth-htpasswd-filename', file, '--auth-htpasswd-encryption', 'plain'];
      })()
    : ['--auth-type', 'none'];
  const child = spawn(
    'radicale',
    [
      '--config',
      '',
      '--server-hosts',
      '127.0.0.1:0',
      '--storage-filesystem-folder',
      path.join(dir, 'collections'),
      ...auth,
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

/** A CalDAV request as a user (MKCALENDAR, PUT, DELETE); its status. */
export async function caldav(
  base: string,
  user: { user: string; password: string },
  method: string,
  pathname: string,
  body?: string,
): Promise<number> {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${user.user}:${user.password}`).toString('base64')}`,
      'content-type': 'text/calendar; charset=utf-8',
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

export { vcalendar } from './ical-text';
