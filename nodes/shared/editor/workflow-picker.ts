import { WORKFLOW_STATUSES } from '../../../lib/rules';
import { adminErrorText, postAdmin } from './admin';

/** A workflow as the picker holds it; `key` is what a search matches (name and id, lower case). */
export interface PickerWorkflow {
  id: string;
  name: string;
  status: string;
  key: string;
}

interface WorkflowPage {
  workflows: Array<{ id: string; name?: string; status?: string }>;
  next: string | null;
}

export interface WorkflowPickerOptions {
  /** The picker's container, holding the elements named by the ids below. */
  root: JQuery;
  search: JQuery;
  showAll: JQuery;
  list: JQuery;
  count: JQuery;
  text: (key: string, values?: Record<string, unknown>) => string;
  onPick: (workflow: PickerWorkflow) => void;
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
export const MAX_ROWS = 100;
/** While pages arrive, the list is redrawn at most this often. */
const REDRAW_MS = 250;
/** Active workflows first: only they accept jobs, and the picker shows them by default. */
const LOAD_ORDER = ['active', ...WORKFLOW_STATUSES.filter((s) => s !== 'active')];

/** The workflows a search shows: every term must appear in the name or the id. */
export function filterWorkflows(all: readonly PickerWorkflow[], query: string, showAll: boolean): PickerWorkflow[] {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  return all.filter((w) => (showAll || w.status === 'active') && terms.every((t) => w.key.includes(t)));
}

export function createWorkflowPicker(o: WorkflowPickerOptions): WorkflowPicker {
  let all: PickerWorkflow[] = [];
  let current = '';
  let generation = 0;
  let loading = false;
  let redrawTimer: ReturnType<typeof setTimeout> | undefined;

  const render = (): void => {
    const showAll = Boolean(o.showAll.prop('checked'));
    const query = String(o.search.val() ?? '');
    const shown = filterWorkflows(all, query, showAll);
    const rows = document.createDocumentFragment();
    for (const w of shown.slice(0, MAX_ROWS)) rows.appendChild(row(w, w.id === current));
    o.list.empty().append(rows);
    if (shown.length > MAX_ROWS) {
      $('<div class="ms-wf-more">')
        .text(o.text('picker.more', { count: (shown.length - MAX_ROWS).toLocaleString() }))
        .appendTo(o.list);
    }
    if (shown.length === 0 && all.length > 0) {
      const hidden = showAll ? 0 : filterWorkflows(all, query, true).length;
      $('<div class="ms-wf-none">')
        .text(hidden > 0 ? o.text('picker.onlyInactive', { count: hidden }) : o.text('picker.none'))
        .appendTo(o.list);
    }
    const active = all.reduce((n, w) => n + (w.status === 'active' ? 1 : 0), 0);
    o.count.text(
      o.text(loading ? 'picker.loading' : 'picker.loaded', {
        total: all.length.toLocaleString(),
        active: active.toLocaleString(),
        matching: shown.length.toLocaleString(),
      }),
    );
  };

  const scheduleRender = (): void => {
    if (redrawTimer) return;
    redrawTimer = setTimeout(() => {
      redrawTimer = undefined;
      render();
    }, REDRAW_MS);
  };

  // plain DOM: a hundred rows per keystroke, where jQuery's per-element overhead shows
  const row = (w: PickerWorkflow, selected: boolean): HTMLElement => {
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
  };

  o.list.on('click', '.ms-wf-row', function () {
    const id = String($(this).attr('data-id'));
    const picked = all.find((w) => w.id === id);
    if (!picked) return;
    current = id;
    o.list.find('.ms-wf-row.selected').removeClass('selected').attr('aria-selected', 'false');
    $(this).addClass('selected').attr('aria-selected', 'true');
    o.onPick(picked);
  });
  o.search.on('input', render);
  o.showAll.on('change', render);

  const loadPages = async (body: Record<string, unknown>, mine: number): Promise<void> => {
    for (const status of LOAD_ORDER) {
      let pageToken: string | null = null;
      do {
        const page: WorkflowPage = await postAdmin<WorkflowPage>('workflow-page', { ...body, status, pageToken });
        if (mine !== generation) return;
        for (const w of page.workflows) {
          const name = w.name ?? '';
          all.push({ id: w.id, name, status: w.status ?? status, key: `${name} ${w.id}`.toLowerCase() });
        }
        // the first page shows at once; later ones in batches
        if (all.length === page.workflows.length) render();
        else scheduleRender();
        pageToken = page.next;
      } while (pageToken);
    }
  };

  return {
    load(body) {
      const mine = ++generation;
      all = [];
      if (!body) {
        loading = false;
        render();
        return;
      }
      loading = true;
      render();
      loadPages(body, mine).then(
        () => {
          if (mine !== generation) return;
          loading = false;
          render();
        },
        (xhr: JQuery.jqXHR) => {
          if (mine !== generation) return;
          loading = false;
          render();
          o.count.text(`${o.text('picker.failed')} ${adminErrorText(xhr)}`);
        },
      );
    },
    setCurrent(id) {
      current = id;
      render();
    },
    stop() {
      generation++;
      if (redrawTimer) clearTimeout(redrawTimer);
      redrawTimer = undefined;
    },
  };
}
