import { type CronPart, tokenizeCron } from '../../../lib/schedule/cron-syntax';

/** What the window form can show: a start time on some days of the week (0 = Sunday). */
interface CronForm {
  days: number[];
  /** HH:MM */
  time: string;
}

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
/** The week as the form lists it: Monday first. */
export const WEEK = [1, 2, 3, 4, 5, 6, 0];

const single = (parts: CronPart[]): number | undefined =>
  parts.length === 1 && parts[0].kind === 'value' ? parts[0].value : undefined;
const any = (parts: CronPart[]) => parts.length === 1 && parts[0].kind === 'any';

function weekdays(parts: CronPart[]): number[] | undefined {
  if (any(parts)) return [0, 1, 2, 3, 4, 5, 6];
  const days = new Set<number>();
  for (const p of parts) {
    if (p.kind === 'value') days.add(p.value % 7);
    else if (p.kind === 'range' && p.step === 1 && p.from <= p.to) {
      for (let d = p.from; d <= p.to; d++) days.add(d % 7);
    } else return undefined;
  }
  return [...days].sort((a, b) => a - b);
}

/** The form for an expression it can represent (one time a day, on some weekdays, every month), else null. */
export function cronToForm(expression: string): CronForm | null {
  let tokens: ReturnType<typeof tokenizeCron>;
  try {
    if (expression.trim().startsWith('@')) return null;
    tokens = tokenizeCron(expression);
  } catch {
    return null;
  }
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = tokens.fields;
  const m = single(minute);
  const h = single(hour);
  if (single(second) !== 0 || m === undefined || h === undefined || !any(dayOfMonth) || !any(month)) return null;
  const days = weekdays(dayOfWeek);
  if (!days) return null;
  return { days, time: `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}` };
}

/** Monday-first runs of consecutive days as names: [1,2,3,4,5] → "mon-fri", [1,3,5] → "mon,wed,fri". */
function dayField(days: number[]): string {
  const set = new Set(days);
  if (set.size === 7) return '*';
  const runs: string[] = [];
  let run: number[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const names = run.map((d) => DAY_NAMES[d]);
    runs.push(run.length > 2 ? `${names[0]}-${names[names.length - 1]}` : names.join(','));
    run = [];
  };
  for (const d of WEEK) {
    if (set.has(d)) run.push(d);
    else flush();
  }
  flush();
  return runs.join(',');
}

/** The expression for a form: "M H * * days". */
export function formToCron(form: CronForm): string {
  const [h, m] = form.time.split(':').map((n) => Number.parseInt(n, 10));
  return `${m} ${h} * * ${dayField(form.days)}`;
}
