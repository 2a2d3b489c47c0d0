import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { z } from 'zod';
import { MediaSpacesBaseError } from '../base-error';
import { checkParameter, checkTypecode } from '../typecodes';
import {
  type Fixture,
  type FixtureDocument,
  FixtureSchema,
  type FixtureSpaceDef,
  type FixtureUserDef,
  type FixtureWorkflowDef,
} from './fixture-schema';
import { generateWorkflows } from './generate';

/** The fixture used when none is given; copied next to the compiled code by the build. */
export const DEMO_FIXTURE_PATH = path.join(__dirname, 'fixtures', 'demo.yaml');

export interface FixtureIssue {
  path: string;
  message: string;
}

/** A fixture that cannot be used; the message lists every problem by its path in the document. */
export class FixtureError extends MediaSpacesBaseError<'invalid_fixture'> {
  constructor(
    readonly source: string,
    readonly issues: FixtureIssue[],
  ) {
    const lines = issues.map((i) => `  ${i.path || '(document)'}: ${i.message}`);
    super('FixtureError', 'invalid_fixture', `invalid fixture ${source}:\n${lines.join('\n')}`);
  }
}

/** Reads a YAML fixture file. */
export function loadFixtureFile(file: string): Fixture {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new FixtureError(file, [{ path: '', message: `cannot read the file: ${(err as Error).message}` }]);
  }
  let doc: unknown;
  try {
    doc = YAML.parse(text, { prettyErrors: true });
  } catch (err) {
    throw new FixtureError(file, [{ path: '', message: `not valid YAML: ${(err as Error).message}` }]);
  }
  return parseFixture(doc, file);
}

/** A file path, an already parsed document, or nothing (the demo fixture). */
export function loadFixture(fixture?: string | FixtureDocument): Fixture {
  if (fixture === undefined) return loadFixtureFile(DEMO_FIXTURE_PATH);
  if (typeof fixture === 'string') return loadFixtureFile(fixture);
  return parseFixture(fixture, '(inline fixture)');
}

/** Validates a parsed document, expands `generate`, and checks what a schema cannot see alone. */
export function parseFixture(doc: unknown, source = '(inline fixture)'): Fixture {
  const parsed = FixtureSchema.safeParse(doc);
  if (!parsed.success) throw new FixtureError(source, zodIssues(parsed.error));

  const spaces: FixtureSpaceDef[] = parsed.data.spaces.map((space) => {
    const { generate, ...rest } = space;
    const workflows: FixtureWorkflowDef[] = space.workflows.map((w) => ({
      ...w,
      updated_at: w.updated_at ?? w.created_at,
    }));
    if (generate) {
      workflows.push(...generateWorkflows(space.space_id, generate.count, generate.seed, generate.job_duration_ms));
    }
    return { ...rest, space_id: space.space_id.toLowerCase(), workflows };
  });

  const users = parsed.data.users.map((u) => ({
    ...u,
    spaces: u.spaces.map((g) => ({ ...g, space_id: g.space_id.toLowerCase() })),
  }));
  const issues = [...crossCheck(spaces), ...checkUsers(users, spaces)];
  if (issues.length > 0) throw new FixtureError(source, issues);
  return { source, spaces, users, oauth: parsed.data.oauth };
}

function zodIssues(error: z.ZodError): FixtureIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

function crossCheck(spaces: FixtureSpaceDef[]): FixtureIssue[] {
  const issues: FixtureIssue[] = [];
  const add = (p: string, message: string) => issues.push({ path: p, message });
  const spaceIds = new Map<string, number>();
  // A credential must lead to exactly one space, or authorisation is ambiguous.
  const keys = new Map<string, string>();
  const tokens = new Map<string, string>();

  spaces.forEach((space, s) => {
    const at = `spaces.${s}`;
    const seen = spaceIds.get(space.space_id);
    if (seen !== undefined) add(`${at}.space_id`, `duplicates spaces.${seen}.space_id`);
    spaceIds.set(space.space_id, s);

    space.api_keys.forEach((k, i) => {
      const other = keys.get(k.key);
      if (other) add(`${at}.api_keys.${i}.key`, `is already used at ${other}`);
      keys.set(k.key, `${at}.api_keys.${i}`);
    });
    space.access_tokens.forEach((t, i) => {
      const other = tokens.get(t);
      if (other) add(`${at}.access_tokens.${i}`, `is already used at ${other}`);
      tokens.set(t, `${at}.access_tokens.${i}`);
    });

    const workflowIds = new Map<string, number>();
    space.workflows.forEach((w, i) => {
      const id = w.id.toLowerCase();
      const other = workflowIds.get(id);
      if (other !== undefined) add(`${at}.workflows.${i}.id`, `duplicates ${at}.workflows.${other}.id`);
      workflowIds.set(id, i);
      checkWorkflowInputs(w, `${at}.workflows.${i}.inputs`, add);
    });
  });
  return issues;
}

function checkUsers(users: FixtureUserDef[], spaces: FixtureSpaceDef[]): FixtureIssue[] {
  const issues: FixtureIssue[] = [];
  const known = new Set(spaces.map((s) => s.space_id));
  const names = new Map<string, number>();
  users.forEach((u, i) => {
    const other = names.get(u.username);
    if (other !== undefined)
      issues.push({ path: `users.${i}.username`, message: `duplicates users.${other}.username` });
    names.set(u.username, i);
    const seen = new Set<string>();
    u.spaces.forEach((g, j) => {
      const at = `users.${i}.spaces.${j}.space_id`;
      if (!known.has(g.space_id)) issues.push({ path: at, message: `is not a space of this fixture` });
      else if (seen.has(g.space_id)) issues.push({ path: at, message: 'is listed twice for this user' });
      seen.add(g.space_id);
    });
  });
  return issues;
}

function checkWorkflowInputs(w: FixtureWorkflowDef, at: string, add: (p: string, m: string) => void): void {
  const unique = (names: string[], where: string, what: string) => {
    const seen = new Set<string>();
    names.forEach((n, i) => {
      if (seen.has(n)) add(`${where}.${i}`, `${what} "${n}" is declared twice`);
      seen.add(n);
    });
  };
  const { variables, media_nicknames, attachments, labels } = w.inputs;
  unique(
    variables.map((v) => v.name),
    `${at}.variables`,
    'variable',
  );
  unique(
    media_nicknames.map((n) => n.identifier),
    `${at}.media_nicknames`,
    'media nickname',
  );
  unique(
    attachments.map((a) => a.identifier),
    `${at}.attachments`,
    'attachment',
  );
  unique(
    labels.map((l) => l.identifier),
    `${at}.labels`,
    'label',
  );

  variables.forEach((v, i) => {
    if (v.default === undefined) return;
    const problem = checkTypecode(v.typecode, v.default);
    if (problem) add(`${at}.variables.${i}.default`, problem);
  });
  labels.forEach((label, l) => {
    unique(
      label.parameters.map((p) => p.name),
      `${at}.labels.${l}.parameters`,
      'parameter',
    );
    label.parameters.forEach((p, i) => {
      const where = `${at}.labels.${l}.parameters.${i}`;
      for (const bound of ['minimum_value', 'maximum_value', 'increment_value'] as const) {
        const value = p[bound];
        if (value === undefined) continue;
        // Bounds are compared as numbers whatever the typecode, so they must be numbers.
        if (checkTypecode('Double', value)) add(`${where}.${bound}`, 'must be a number');
      }
      if (p.default_value !== undefined) {
        const problem = checkParameter(p, p.default_value);
        if (problem) add(`${where}.default_value`, problem);
      }
    });
  });
}
