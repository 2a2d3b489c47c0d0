import { WORKFLOW_STATUSES } from '../../../lib/rules';
import { adminErrorText, postAdmin } from './admin';
import { addPickerStyle } from './picker-style';

/** A workflow as the picker holds it; `key` is what a search matches (name, id and status, lower case). */
interface PickerWorkflow {
  id: string;
  name: string;
  status: string;
  key: string;
}

export interface WorkflowPage {
  workflows: Array<{ id: string; name?: string; status?: string }>;
  next: string | null;
}

interface WorkflowPickerOptions {
  search: JQuery;
  showAll: JQuery;
  list: JQuery;
  count: JQuery;
  /** where a warning about the chosen workflow shows (one that is not active accepts no job) */
  warning: JQuery;
  text: (key: string, values?: Record<string, unknown>) => string;
  onPick: (workflow: PickerWorkflow) => void;
  /** one page of the list (default: asked of the runtime; several pickers of one dialog may share the pages) */
  fetchPage?: (body: Record<string, unknown>) => PromiseLike<WorkflowPage>;
}

export interface WorkflowPicker {
  /** Loads the space's workflows page by page (active first); a new load cancels the previous one. */
  load(serverBody: Record<string, unknown> | null): void;
  /** Marks the workflow the node already has. */
  setCurrent(id: string): void;
  /** Stops loading pages (the dialog closed). */
  stop(): void;
}

/**
 * Rendered rows at most: a space may hold 10,000 workflows, and building that
 * many rows on every keystroke would freeze the dialog; past this a line asks
 * the user to refine the search.
 */
const MAX_ROWS = 100;
/** While pages arrive, the list is redrawn at most this often. */
const REDRAW_MS = 250;
/** Active workflows first: only they accept jobs, and the picker shows them by default. */
const LOAD_ORDER = ['active', ...WORKFLOW_STATUSES.filter((s) => s !== 'active')];

/** The workflows a search shows: every term must appear in the name, the id or the status. */
function filterWorkflows(all: readonly PickerWorkflow[], query: string, showAll: boolean): PickerWorkflow[] {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  return all.filter((w) => (showAll || w.status === 'active') && terms.every((t) => w.key.includes(t)));
}

/**
 * The rows to draw: the chosen workflow first whenever the search matches it (so that a reopened
 * dialog shows it, wherever it sits among thousands, and whatever its status), then the others up to
 * `limit`.
 */
function rowsToShow(
  all: readonly PickerWorkflow[],
  shown: readonly PickerWorkflow[],
  current: string,
  query: string,
  limit: number,
): PickerWorkflow[] {
  const chosen = current ? all.find((w) => w.id === current) : undefined;
  if (!chosen || filterWorkflows([chosen], query, true).length === 0) return shown.slice(0, limit);
  return [chosen, ...shown.filter((w) => w !== chosen).slice(0, limit - 1)];
}

/** A row of the list (plain DOM: a hundred rows per keystroke, where jQuery's per-element overhead shows). */
function row(w: PickerWorkflow, selected: boolean): HTMLElement {
  const el = document.createElement('div');
  el.className = selected ? 'ms-wf-row selected' : 'ms-wf-row';
  el.setAttribute('role', 'option');
  el.setAttribute('data-id', w.id);
  el.setAttribute('data-status', w.status);
  el.setAttribute('aria-selected', String(selected));
  el.title = w.id;
  const part = (cls: string, text: string) => {
    const span = document.createElement('span');
    span.className = cls;
    span.textContent = text;
    el.appendChild(span);
  };
  part('ms-wf-name', w.name || w.id);
  part(`ms-wf-status ms-wf-status-${w.status}`, w.status);
  part('ms-wf-id', w.id);
  return el;
}

class Picker implements WorkflowPicker {
  private all: PickerWorkflow[] = [];
  private current = '';
  /** rows drawn at most; "show more" raises it, a new search resets it */
  private limit = MAX_ROWS;
  /** the chosen row is scrolled into view once, when it first appears */
  private revealed = false;
  private generation = 0;
  private loading = false;
  private redrawTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly o: WorkflowPickerOptions) {
    o.list.on('click', '.ms-wf-row', (event) => this.pick($(event.currentTarget as HTMLElement)));
    o.list.on('click', '.ms-wf-more', () => {
      this.limit += MAX_ROWS;
      this.render();
    });
    o.search.on('input', () => {
      this.limit = MAX_ROWS;
      this.render();
    });
    o.showAll.on('change', () => {
      this.limit = MAX_ROWS;
      this.render();
    });
  }

  load(body: Record<string, unknown> | null): void {
    const mine = ++this.generation;
    this.all = [];
    this.loading = Boolean(body);
    this.render();
    if (!body) {
      this.o.count.text(this.o.text('picker.noServer'));
      return;
    }
    this.loadPages(body, mine).then(
      () => {
        if (mine !== this.generation) return;
        this.loading = false;
        this.render();
      },
      (xhr: JQuery.jqXHR) => {
        if (mine !== this.generation) return;
        this.loading = false;
        this.render();
        this.o.count.text(`${this.o.text('picker.failed')} ${adminErrorText(xhr)}`);
      },
    );
  }

  setCurrent(id: string): void {
    this.current = id;
    this.revealed = false;
    this.render();
  }

  stop(): void {
    this.generation++;
    if (this.redrawTimer) clearTimeout(this.redrawTimer);
    this.redrawTimer = undefined;
  }

  private pick($row: JQuery): void {
    const id = String($row.attr('data-id'));
    const picked = this.all.find((w) => w.id === id);
    if (!picked) return;
    this.current = id;
    this.o.list.find('.ms-wf-row.selected').removeClass('selected').attr('aria-selected', 'false');
    $row.addClass('selected').attr('aria-selected', 'true');
    this.warn(picked);
    this.o.onPick(picked);
  }

  /** A workflow that is not active accepts no job: said at once, not at the first inject. */
  private warn(w: PickerWorkflow | undefined): void {
    const inactive = w !== undefined && w.status !== 'active';
    this.o.warning
      .text(inactive ? this.o.text('picker.inactive', { name: w.name || w.id, status: w.status }) : '')
      .toggle(inactive);
  }

  private async loadPages(body: Record<string, unknown>, mine: number): Promise<void> {
    for (const status of LOAD_ORDER) {
      let pageToken: string | null = null;
      do {
        const request = { ...body, status, pageToken };
        const page: WorkflowPage = await (this.o.fetchPage?.(request) ??
          postAdmin<WorkflowPage>('workflow-page', request));
        if (mine !== this.generation) return;
        for (const w of page.workflows) {
          const name = w.name ?? '';
          this.all.push({
            id: w.id,
            name,
            status: w.status ?? status,
            key: `${name} ${w.id} ${w.status ?? status}`.toLowerCase(),
          });
        }
        // the first page shows at once; later ones in batches
        if (this.all.length === page.workflows.length) this.render();
        else this.scheduleRender();
        pageToken = page.next;
      } while (pageToken);
    }
  }

  private scheduleRender(): void {
    if (this.redrawTimer) return;
    this.redrawTimer = setTimeout(() => {
      this.redrawTimer = undefined;
      this.render();
    }, REDRAW_MS);
  }

  private render(): void {
    const { o, all } = this;
    const showAll = Boolean(o.showAll.prop('checked'));
    const query = String(o.search.val() ?? '');
    const shown = filterWorkflows(all, query, showAll);
    const drawn = rowsToShow(all, shown, this.current, query, this.limit);
    const rows = document.createDocumentFragment();
    for (const w of drawn) rows.appendChild(row(w, w.id === this.current));
    o.list.empty().append(rows);
    const left = shown.length - drawn.filter((w) => shown.includes(w)).length;
    if (left > 0) {
      $('<div class="ms-wf-more" role="button" tabindex="0">')
        .text(o.text('picker.more', { count: left.toLocaleString(), next: Math.min(left, MAX_ROWS) }))
        .appendTo(o.list);
    }
    const chosen = this.current ? all.find((w) => w.id === this.current) : undefined;
    if (chosen && !this.revealed) {
      this.revealed = true;
      this.warn(chosen);
      o.list.scrollTop(0);
    }
    if (shown.length === 0 && all.length > 0) {
      const hidden = showAll ? 0 : filterWorkflows(all, query, true).length;
      $('<div class="ms-wf-none">')
        .text(hidden > 0 ? o.text('picker.onlyInactive', { count: hidden }) : o.text('picker.none'))
        .appendTo(o.list);
    }
    const active = all.reduce((n, w) => n + (w.status === 'active' ? 1 : 0), 0);
    o.count.text(
      o.text(this.loading ? 'picker.loading' : 'picker.loaded', {
        total: all.length.toLocaleString(),
        active: active.toLocaleString(),
        matching: shown.length.toLocaleString(),
      }),
    );
  }
}

/** The picker in its elements; it loads nothing until load() is called. */
export function createWorkflowPicker(o: WorkflowPickerOptions): WorkflowPicker {
  addPickerStyle();
  return new Picker(o);
}
