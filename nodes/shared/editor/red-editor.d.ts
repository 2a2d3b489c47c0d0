/**
 * The slice of the Node-RED editor API the editor code uses. Node-RED ships no
 * editor types; jQuery's come from @types/jquery. Extend as editors need more.
 */

interface EditorNodeProperty {
  value: unknown;
  type?: string;
  required?: boolean;
  label?: string;
  validate?: (this: EditorNodeInstance, value: unknown, opt?: unknown) => boolean | string;
}

interface EditorNodeInstance {
  id: string;
  type: string;
  name?: string;
  credentials?: Record<string, unknown>;
  /** The node's own message catalogue (its locales/<lang>/*.json), for dialog texts. */
  _(key: string, substitutions?: Record<string, unknown>): string;
  [key: string]: unknown;
}

interface EditorNodeDefinition<T extends EditorNodeInstance = EditorNodeInstance> {
  category: string;
  color?: string;
  defaults: Record<string, EditorNodeProperty>;
  credentials?: Record<string, { type: 'text' | 'password'; required?: boolean; label?: string }>;
  inputs?: number;
  outputs?: number;
  outputLabels?: string[] | ((this: T, index: number) => string);
  inputLabels?: string | ((this: T) => string);
  icon?: string;
  align?: 'left' | 'right';
  paletteLabel?: string | ((this: T) => string);
  label?: string | ((this: T) => string);
  labelStyle?: string | ((this: T) => string);
  button?: { enabled?: (this: T) => boolean; visible?: (this: T) => boolean; onclick: (this: T) => void };
  /** Called when the node is added to the canvas (from the palette, pasted or imported). */
  onadd?: (this: T) => void;
  oneditprepare?: (this: T) => void;
  oneditsave?: (this: T) => void;
  oneditcancel?: (this: T) => void;
  oneditdelete?: (this: T) => void;
  oneditresize?: (this: T, size: { width: number; height: number }) => void;
}

interface EditorRED {
  nodes: {
    registerType<T extends EditorNodeInstance>(type: string, definition: EditorNodeDefinition<T>): void;
    node(id: string): EditorNodeInstance | null;
    /** A registered type's definition, with its catalogue's `_` (absent for a type not registered). */
    getType(type: string): (EditorNodeDefinition & Partial<Pick<EditorNodeInstance, '_'>>) | null | undefined;
    eachNode(callback: (node: EditorNodeInstance) => boolean | undefined): void;
    /** Every config node; return false to stop. */
    eachConfig(callback: (node: EditorNodeInstance) => boolean | undefined): void;
    workspace(id: string): unknown;
    eachWorkspace(callback: (workspace: { id: string; label?: string }) => void): void;
    filterLinks(filter: {
      source?: { id: string };
      target?: { id: string };
    }): Array<{ source: EditorNodeInstance; sourcePort: number; target: EditorNodeInstance }>;
    group(id: string): unknown;
    subflow(id: string): unknown;
    dirty(dirty?: boolean): boolean;
    /** Records `node` among the users of each config node it refers to (absent from some releases). */
    updateConfigNodeUsers?(node: EditorNodeInstance, options?: { action?: 'add' | 'remove' }): void;
  };
  history: { push(event: Record<string, unknown>): void };
  workspaces: { show(id: string): void };
  validators: {
    typedInput(typeField: string): (this: EditorNodeInstance, value: unknown, opt?: unknown) => boolean | string;
    number(blankAllowed?: boolean): (value: unknown) => boolean;
    regex(re: RegExp): (value: unknown) => boolean;
  };
  notify(
    message: string | JQuery,
    options?:
      | string
      | {
          type?: string;
          timeout?: number;
          modal?: boolean;
          fixed?: boolean;
          buttons?: { text: string; class?: string; id?: string; click: () => void }[];
        },
  ): { close(): void } | undefined;
  _(key: string, substitutions?: Record<string, unknown>): string;
  settings: Record<string, unknown>;
  view: {
    reveal(id: string): void;
    redraw(full?: boolean): void;
    /** Node-RED's import (the Import dialog's too); options as RED.view.importNodes takes them. */
    importNodes(nodes: unknown, options?: { generateIds?: boolean } & Record<string, unknown>): unknown;
  };
  editor: {
    /** Checks a node's properties again and marks it valid or not on the canvas. */
    validateNode(node: EditorNodeInstance): void;
    /** Opens a text in a tray of its own (the "expand" of Node-RED's own editors); complete gets the edited text. */
    editText(options: {
      mode?: string;
      value: string;
      title?: string;
      width?: string | number;
      complete: (value: string) => void;
    }): void;
    createEditor(options: Record<string, unknown>): {
      getValue(): string;
      setValue(text: string, cursor?: number): void;
      destroy(): void;
      focus(): void;
      getSession(): { on(event: string, handler: () => void): void };
      resize(): void;
    };
  };
  comms: {
    subscribe(topic: string, handler: (topic: string, payload: unknown) => void): void;
    unsubscribe(topic: string, handler: (topic: string, payload: unknown) => void): void;
  };
  events: {
    on(event: string, handler: (...args: unknown[]) => void): void;
    emit(event: string, ...args: unknown[]): void;
  };
  actions: { add(name: string, handler: () => void): void };
  sidebar: {
    addTab(options: Record<string, unknown>): void;
    removeTab(id: string): void;
    show(id: string): void;
  };
  plugins?: { registerPlugin(id: string, definition: Record<string, unknown>): void };
  user?: { hasPermission?(permission: string): boolean };
}

declare const RED: EditorRED;

/** Node-RED's jQuery widgets. */
interface JQuery<TElement = HTMLElement> {
  typedInput(options: {
    default?: string;
    types: (string | Record<string, unknown>)[];
    typeField?: string;
  }): JQuery<TElement>;
  typedInput(method: 'value' | 'type', value?: string): string;
  typedInput(method: string, ...args: unknown[]): unknown;
  editableList(options: Record<string, unknown>): JQuery<TElement>;
  editableList(method: string, ...args: unknown[]): unknown;
  i18n(): JQuery<TElement>;
}
