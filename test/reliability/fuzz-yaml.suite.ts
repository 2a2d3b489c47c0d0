import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadScheduleObject,
  loadScheduleYaml,
  type ParseResult,
  parseScheduleObject,
  parseScheduleYaml,
  ScheduleConfigError,
} from '../../lib/schedule';
import { helper, initRuntime, sleep, waitFor } from '../support/node-red-runtime';
import { fuzzValue, POLLUTION_KEYS } from './support/fuzz-values';
import { type Msg, OutcomeTracker } from './support/outcome-tracker';
import { ProcessWatch } from './support/process-watch';
import { print, table, writeResults } from './support/results';
import { onTab, SCHEDULE_NODE } from './support/runtime-nodes';
import { SeededRandom } from './support/seeded-random';
import { SEED, SIZE_NAME, sized } from './support/suite-size';
import { mutateSchedule, VALID_SCHEDULES } from './support/yaml-mutations';

/**
 * Schedule YAML, mutated (lines deleted, duplicated, swapped, re-indented;
 * values swapped and replaced; random characters; cut short; keys renamed;
 * anchors, aliases, tags, alias bombs, prototype-pollution keys), from a
 * seeded PRNG:
 * - through the library: parseScheduleYaml never throws; its result is ok,
 *   or issues that each carry a line number within the text and a message;
 *   loadScheduleYaml throws nothing but ScheduleConfigError (and only when
 *   the parse is not ok); the editor's object model (parseScheduleObject)
 *   likewise, with mutated objects;
 * - through the schedule node: deployed with the mutated YAML, a node whose
 *   YAML the library refuses reports exactly one configuration error to
 *   Catch, every issue with its line; a node whose YAML is fine reports
 *   none; a `reload` then ends in exactly one outcome, a `list` in a reply.
 *
 * Size: 1,000 YAML + 300 object cases + 150 nodes (CI); 10,000 + 2,000 + 1,000 long.
 */

const YAML_CASES = sized(1_000, 10_000);
const OBJECT_CASES = sized(300, 2_000);
const NODE_CASES = sized(150, 1_000);
const NODES_PER_DEPLOY = 50;

interface YamlFailure {
  case: number;
  steps: string[];
  problem: string;
}

/** Problems with one parse of `text`; empty when the outcome is well-formed. */
function checkYaml(text: string): { problems: string[]; result?: ParseResult } {
  const problems: string[] = [];
  let result: ParseResult;
  try {
    result = parseScheduleYaml(text);
  } catch (error) {
    return { problems: [`parseScheduleYaml threw ${(error as Error)?.name}: ${(error as Error)?.message}`] };
  }
  const lineCount = text.split(/\r\n|\r|\n/).length;
  if (result.ok) {
    if (!Array.isArray(result.config.windows)) problems.push('ok without a windows list');
  } else {
    if (result.issues.length === 0) problems.push('not ok, but no issues');
    for (const issue of result.issues) {
      if (!Number.isInteger(issue.line) || (issue.line ?? 0) < 1 || (issue.line ?? 0) > lineCount + 1) {
        problems.push(`issue without a line number in the text (line ${issue.line}): ${JSON.stringify(issue)}`);
      }
      if (typeof issue.message !== 'string' || issue.message.trim() === '') problems.push('issue without a message');
      if (typeof issue.message === 'string' && issue.message.length > 1_000) {
        problems.push(`issue message of ${issue.message.length} characters`);
      }
      if (typeof issue.path !== 'string') problems.push('issue without a path');
    }
  }
  try {
    loadScheduleYaml(text);
    if (!result.ok) problems.push('loadScheduleYaml accepted what parseScheduleYaml refused');
  } catch (error) {
    if (!(error instanceof ScheduleConfigError)) {
      problems.push(`loadScheduleYaml threw ${(error as Error)?.name}: ${(error as Error)?.message}`);
    } else if (result.ok) problems.push('loadScheduleYaml refused what parseScheduleYaml accepted');
  }
  return { problems, result };
}

/** Mutates a parsed valid document: values replaced, keys deleted, unknown and pollution keys added. */
function mutateObject(r: SeededRandom, value: unknown, depth = 0): unknown {
  if (r.chance(depth === 0 ? 0.02 : 0.08)) return fuzzValue(r, { hugeChance: 0.002 });
  if (Array.isArray(value)) {
    const out = value.map((v) => mutateObject(r, v, depth + 1));
    if (r.chance(0.1)) out.push(fuzzValue(r, { hugeChance: 0 }));
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (r.chance(0.06)) continue;
      out[k] = mutateObject(r, v, depth + 1);
    }
    if (r.chance(0.05)) {
      const key = r.pick([...POLLUTION_KEYS, 'toString', 'extra', 'cron ']);
      Object.defineProperty(out, key, {
        value: fuzzValue(r, { hugeChance: 0 }),
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
    return out;
  }
  return value;
}

function scheduleFlow(tab: string, texts: string[]): Record<string, unknown>[] {
  const at = onTab(tab);
  const ids = texts.map((_, i) => `${tab}-s${i}`);
  return [
    { id: tab, type: 'tab', label: tab },
    ...texts.map((yaml, i) => ({
      id: ids[i],
      ...at,
      type: 'media-spaces-schedule',
      source: 'yaml',
      yaml,
      catchUp: true,
      wires: [['starts'], ['ends'], ['ctl']],
    })),
    { id: 'starts', ...at, type: 'helper' },
    { id: 'ends', ...at, type: 'helper' },
    { id: 'ctl', ...at, type: 'helper' },
    { id: 'catcher', ...at, type: 'catch', scope: ids, uncaught: false, wires: [['caught']] },
    { id: 'caught', ...at, type: 'helper' },
  ];
}

const watch = new ProcessWatch();

beforeAll(() => {
  initRuntime();
  watch.start();
});

afterAll(async () => {
  watch.stop();
  await helper.unload();
});

describe(`fuzz of schedule YAML (${SIZE_NAME}, seed ${SEED})`, () => {
  const figures: Record<string, unknown> = { size: SIZE_NAME, seed: SEED };

  it(`library: ${YAML_CASES} mutated documents are ok or issues with line numbers; only ScheduleConfigError is thrown`, () => {
    const r = new SeededRandom(SEED);
    const failures: YamlFailure[] = [];
    let ok = 0;
    let issues = 0;
    const firstIssues: Record<string, number> = {};
    for (let i = 0; i < YAML_CASES; i++) {
      const m = mutateSchedule(r.fork());
      const { problems, result } = checkYaml(m.text);
      for (const problem of problems) failures.push({ case: i, steps: m.steps, problem });
      if (result?.ok) ok++;
      else if (result) {
        issues++;
        const kind = result.issues[0]?.message.replace(/".*"|\d+/g, '…').slice(0, 50) ?? '';
        firstIssues[kind] = (firstIssues[kind] ?? 0) + 1;
      }
      // the same text gives the same answer
      if (i % 50 === 0) expect(JSON.stringify(parseScheduleYaml(m.text))).toBe(JSON.stringify(result));
    }
    for (const text of VALID_SCHEDULES) expect(parseScheduleYaml(text).ok).toBe(true);
    const top = Object.entries(firstIssues)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8);
    figures.library_yaml = { cases: YAML_CASES, ok, issues, failures: failures.length, first_issue_kinds: top };
    print(
      [
        '',
        `schedule YAML through the library (${SIZE_NAME}, seed ${SEED}): ${YAML_CASES} cases, ${ok} ok, ${issues} with issues, ${failures.length} malformed outcomes`,
        table([['most common first issue', 'cases'], ...top]),
      ].join('\n'),
    );
    expect(failures.slice(0, 20)).toEqual([]);
    expect(ok).toBeGreaterThan(0);
    expect(issues).toBeGreaterThan(YAML_CASES / 3);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it(`library: ${OBJECT_CASES} mutated editor models are ok or issues with paths; only ScheduleConfigError is thrown`, () => {
    const r = new SeededRandom(SEED + 1);
    const models = VALID_SCHEDULES.map((text) => {
      const parsed = parseScheduleYaml(text);
      if (!parsed.ok) throw new Error('a valid schedule does not parse');
      return parsed.raw;
    });
    const failures: string[] = [];
    let ok = 0;
    for (let i = 0; i < OBJECT_CASES; i++) {
      const model = mutateObject(r, r.pick(models));
      let result: ParseResult;
      try {
        result = parseScheduleObject(model);
      } catch (error) {
        failures.push(`case ${i}: parseScheduleObject threw ${(error as Error)?.message}`);
        continue;
      }
      if (result.ok) ok++;
      else {
        if (result.issues.length === 0) failures.push(`case ${i}: not ok without issues`);
        for (const issue of result.issues) {
          if (typeof issue.path !== 'string' || typeof issue.message !== 'string' || issue.message === '') {
            failures.push(`case ${i}: malformed issue ${JSON.stringify(issue)}`);
          }
          if (issue.message.length > 1_000) failures.push(`case ${i}: issue of ${issue.message.length} characters`);
        }
      }
      try {
        loadScheduleObject(model);
      } catch (error) {
        if (!(error instanceof ScheduleConfigError)) {
          failures.push(`case ${i}: loadScheduleObject threw ${(error as Error)?.name}: ${(error as Error)?.message}`);
        } else if (Object.keys(error.fieldErrors).length === 0) {
          failures.push(`case ${i}: ScheduleConfigError without field errors`);
        }
      }
    }
    figures.library_objects = { cases: OBJECT_CASES, ok, issues: OBJECT_CASES - ok, failures: failures.length };
    print(`editor models through the library: ${OBJECT_CASES} cases, ${ok} ok, ${failures.length} malformed outcomes`);
    expect(failures.slice(0, 20)).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it(`schedule node: ${NODE_CASES} nodes deployed with mutated YAML report exactly the library's verdict`, async () => {
    const r = new SeededRandom(SEED + 2);
    const failures: string[] = [];
    let refused = 0;
    let accepted = 0;
    let deploys = 0;
    const outcomes = { reload_ok: 0, reload_error: 0, list_ok: 0 };
    for (let first = 0; first < NODE_CASES; first += NODES_PER_DEPLOY) {
      const count = Math.min(NODES_PER_DEPLOY, NODE_CASES - first);
      const cases = Array.from({ length: count }, () => mutateSchedule(r.fork()));
      const verdicts = cases.map((c) => parseScheduleYaml(c.text));
      const tab = `y${deploys++}`;
      const caught: Msg[] = [];
      await helper.load(
        [SCHEDULE_NODE],
        scheduleFlow(
          tab,
          cases.map((c) => c.text),
        ),
      );
      helper.getNode('caught').on('input', (m) => caught.push(m as Msg));
      const tracker = new OutcomeTracker();
      tracker.attach({ outcome: [helper.getNode('ctl')], error: [helper.getNode('caught')] });
      // configuration errors are reported once the flow has started: wait for as many as the library
      // refuses (10 s at most), then a moment more so that an extra one would show too
      // (a shortfall is reported node by node below, so the wait's own timeout is not the failure)
      const expected = verdicts.filter((v) => !v.ok).length;
      await waitFor(() => caught.length >= expected, 10_000).catch(() => undefined);
      await sleep(150);

      for (let i = 0; i < count; i++) {
        const id = `${tab}-s${i}`;
        const mine = caught.filter((m) => (m.error as { source?: { id?: string } })?.source?.id === id);
        const label = `node ${first + i} [${cases[i].steps.join('; ')}]`;
        const verdict = verdicts[i];
        if (verdict.ok) {
          accepted++;
          if (mine.length !== 0) failures.push(`${label}: valid YAML, but ${mine.length} errors`);
          continue;
        }
        refused++;
        if (mine.length !== 1) {
          failures.push(`${label}: invalid YAML, ${mine.length} configuration errors`);
          continue;
        }
        const reported = (mine[0].payload as { issues?: unknown }).issues;
        // a document nested so deep that the YAML parser runs out of stack is refused either way, but
        // what else the parser reports then depends on how deep the stack already was
        const outOfStack = [...(Array.isArray(reported) ? reported : []), ...verdict.issues.map((i) => i.message)].some(
          (t) => typeof t === 'string' && t.includes('Maximum call stack size exceeded'),
        );
        if (!Array.isArray(reported) || (reported.length !== verdict.issues.length && !outOfStack)) {
          failures.push(`${label}: issues ${JSON.stringify(reported)?.slice(0, 200)} differ from the library's`);
        } else if (!reported.every((t) => typeof t === 'string' && /^line \d+: /.test(t))) {
          failures.push(`${label}: an issue without its line: ${JSON.stringify(reported).slice(0, 200)}`);
        }
        const message = String((mine[0].error as { message?: unknown }).message);
        if (message.length > 2_000) failures.push(`${label}: error message of ${message.length} characters`);
      }

      // control messages: reload ends in a reply or an error, list in a reply
      for (let i = 0; i < count; i++) {
        tracker.expect(`${tab}-reload-${i}`, verdicts[i].ok ? 'reload-ok' : 'reload-refused');
        helper.getNode(`${tab}-s${i}`).receive({ _msgid: `${tab}-reload-${i}`, topic: 'reload' });
        tracker.expect(`${tab}-list-${i}`, 'list');
        helper.getNode(`${tab}-s${i}`).receive({ _msgid: `${tab}-list-${i}`, topic: 'list' });
      }
      await tracker.drain(5_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const t of tracker.byId.values()) {
        const n = t.outputs.length + t.errors.length;
        if (n !== 1) {
          failures.push(`${t.id}: ${n} outcomes`);
          continue;
        }
        if (t.kind === 'list' && t.outputs.length !== 1) failures.push(`${t.id}: list failed`);
        if (t.kind === 'reload-ok') {
          if (t.outputs.length === 1) outcomes.reload_ok++;
          else failures.push(`${t.id}: reload of valid YAML failed`);
        }
        if (t.kind === 'reload-refused') {
          if (t.errors.length === 1) outcomes.reload_error++;
          else failures.push(`${t.id}: reload of invalid YAML succeeded`);
        }
        if (t.kind === 'list' && t.outputs.length === 1) outcomes.list_ok++;
      }
      await helper.unload();
    }
    figures.node = { nodes: NODE_CASES, deploys, refused, accepted, ...outcomes, failures: failures.length };
    const file = writeResults('fuzz-yaml', {
      ...figures,
      unhandled_rejections: watch.unhandledRejections.length,
      uncaught_exceptions: watch.uncaughtExceptions.length,
    });
    print(
      [
        `schedule node: ${NODE_CASES} nodes in ${deploys} deploys, ${refused} refused their YAML, ${accepted} accepted it; ` +
          `reload ${outcomes.reload_ok} ok / ${outcomes.reload_error} errors, list ${outcomes.list_ok} ok; ${failures.length} mismatches`,
        `written to ${file}`,
      ].join('\n'),
    );
    expect(failures.slice(0, 20)).toEqual([]);
    expect(refused).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
    expect(watch.describe()).toEqual([]);
  });
});
