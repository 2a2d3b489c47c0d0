import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from '../../reliability/support-restart/node-red';

const require = createRequire(import.meta.url);
const bcrypt = require('bcryptjs') as { hashSync(text: string, rounds: number): string };

/** The test-only nodes that feed the sidebar through its public API (test/e2e/fixtures/activity). */
export const FIXTURE_DIR = join(ROOT, 'test/e2e/fixtures/activity');
/** The test-only module that publishes slot transitions in the runtime (test/e2e/fixtures/slot-events). */
export const SLOT_EVENTS_FIXTURE_DIR = join(ROOT, 'test/e2e/fixtures/slot-events');

/** Puts the fixture nodes into a user directory's nodes/ folder, where Node-RED loads them from. */
export function installFixtureNodes(userDir: string): void {
  mkdirSync(join(userDir, 'nodes'), { recursive: true });
  for (const dir of [FIXTURE_DIR, SLOT_EVENTS_FIXTURE_DIR]) {
    for (const file of readdirSync(dir)) copyFileSync(join(dir, file), join(userDir, 'nodes', file));
  }
}

export const PASSWORDS = {
  admin: 'admin-pass-5d1e',
  operator: 'operator-pass-93ab',
  viewer: 'viewer-pass-2c77',
  outsider: 'outsider-pass-7f40',
};
export type User = keyof typeof PASSWORDS;

/** Every read permission Node-RED's own editor asks for (so the editor loads), and none of media-spaces. */
const OUTSIDER_PERMISSIONS = [
  'context.read',
  'credentials.read',
  'flows.read',
  'library.read',
  'nodes.read',
  'plugins.read',
  'projects.read',
  'settings.read',
  'status.read',
  'debug.read',
];

/**
 * adminAuth with users: admin ("*"), operator (read + media-spaces.write),
 * viewer ("read": every *.read, media-spaces.read among them), outsider (the
 * editor's own read permissions, none of media-spaces).
 */
export function adminAuthSettings(): string {
  const user = (name: User, permissions: unknown) =>
    `{ username: '${name}', password: ${JSON.stringify(bcrypt.hashSync(PASSWORDS[name], 8))}, permissions: ${JSON.stringify(permissions)} }`;
  return `  adminAuth: {
    type: 'credentials',
    users: [
      ${user('admin', '*')},
      ${user('operator', ['read', 'media-spaces.write'])},
      ${user('viewer', 'read')},
      ${user('outsider', OUTSIDER_PERMISSIONS)},
    ],
  },
`;
}

/** The body of Node-RED's POST /auth/token for a user of adminAuth, as the editor signs in. */
export function signInBody(username: string, password: string): Record<string, string> {
  return { client_id: 'node-red-admin', grant_type: 'password', scope: '', username, password };
}

/** An "Evening news" schedule, daily 18:00 Europe/London for an hour, plus a jobs node. */
export function activityFlow(
  extra: Record<string, unknown> = {},
): Array<Record<string, unknown> & { id: string; type: string }> {
  return [
    { id: 'sidebartab000001', type: 'tab', label: 'sidebar', disabled: false, info: '' },
    {
      id: 'sidebarsched0001',
      type: 'media-spaces-test-schedule',
      z: 'sidebartab000001',
      name: 'News schedule',
      windows: JSON.stringify([
        { id: 'news', name: 'Evening news', cron: '0 18 * * *', timezone: 'Europe/London', duration: 3600 },
      ]),
      slots: '[]',
      paused: false,
      copies: 1,
      x: 200,
      y: 100,
      wires: [[]],
      ...extra,
    },
    {
      id: 'sidebarjobs00001',
      type: 'media-spaces-test-jobs',
      z: 'sidebartab000001',
      name: 'jobs',
      x: 200,
      y: 200,
      wires: [],
    },
  ];
}
