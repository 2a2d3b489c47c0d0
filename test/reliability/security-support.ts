import { readFileSync } from 'node:fs';
import type { FlowNode } from './support-restart/node-red';

/**
 * Flow pieces shared by the security suites: every output, Catch message and
 * status event of a flow is written, one JSON line each, to a file in the
 * user directory (function node -> core file node), so a suite can read all
 * of them back after the run without depending on the debug sidebar.
 */

export interface CaptureNodes {
  /** Wire outputs here. */
  out: string;
  nodes: FlowNode[];
}

/** A function node tagging messages with `kind`, then a file node appending them to `file`. */
export function captureNodes(tab: string, file: string, prefix = 'cap'): CaptureNodes {
  const fileNode = `${prefix}-file`;
  const tagger = (kind: string) => ({
    id: `${prefix}-${kind}`,
    type: 'function',
    z: tab,
    x: 900,
    y: 100,
    name: `capture ${kind}`,
    func: `msg.payload = JSON.stringify({ kind: ${JSON.stringify(kind)}, msg: msg });\nreturn msg;`,
    outputs: 1,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    wires: [[fileNode]],
  });
  const nodes: FlowNode[] = [
    tagger('out'),
    tagger('catch'),
    tagger('status'),
    {
      id: `${prefix}-catcher`,
      type: 'catch',
      z: tab,
      x: 700,
      y: 300,
      name: 'all errors',
      scope: null,
      uncaught: false,
      wires: [[`${prefix}-catch`]],
    },
    {
      id: `${prefix}-statuses`,
      type: 'status',
      z: tab,
      x: 700,
      y: 340,
      name: 'all statuses',
      scope: null,
      wires: [[`${prefix}-status`]],
    },
    {
      id: fileNode,
      type: 'file',
      z: tab,
      x: 1100,
      y: 100,
      name: 'capture file',
      filename: file,
      filenameType: 'str',
      appendNewline: true,
      createDir: true,
      overwriteFile: 'false',
      encoding: 'none',
      wires: [[]],
    },
  ];
  return { out: `${prefix}-out`, nodes };
}

export interface Captured {
  kind: 'out' | 'catch' | 'status';
  msg: Record<string, unknown> & {
    error?: { message?: string; code?: string; status?: number; source?: { id?: string; type?: string } };
    status?: { fill?: string; shape?: string; text?: string; source?: { id?: string; type?: string } };
  };
}

export function readCaptured(file: string): Captured[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Captured);
}

/** Every place a secret was found in `haystacks` (name -> text). */
export function leaks(secrets: string[], haystacks: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [name, text] of Object.entries(haystacks)) {
    for (const secret of secrets) {
      let at = text.indexOf(secret);
      while (at >= 0) {
        found.push(`${name}: "${secret}" in …${text.slice(Math.max(0, at - 80), at + secret.length + 40)}…`);
        at = text.indexOf(secret, at + 1);
        if (found.length > 50) return found;
      }
    }
  }
  return found;
}
