/** True when a YAML text has a comment: a `#` at a line's start or after a space, outside quotes. */
export function hasComments(text: string): boolean {
  return text.split('\n').some((line) => /(^|\s)#/.test(line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/g, '""')));
}
