/**
 * The constructs of a JavaScript regular expression that RE2 (the
 * linear-time engine user patterns run on) does not run: backreferences and
 * lookaround need backtracking. A module of its own, with no dependency, so
 * that the editor flags them the way a deploy refuses them.
 */

/** What the pattern uses that RE2 does not run ("a backreference", "a lookahead"…), or undefined. */
export function unsupportedConstruct(source: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return 'a backreference';
      if (!inClass && next === 'k' && source[i + 2] === '<') return 'a backreference';
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      // a "]" right after "[" or "[^" is a member, not the end (RE2 reads it so)
      if (source[i + 1] === '^') i++;
      if (source[i + 1] === ']') i++;
      continue;
    }
    if (c === '(' && source[i + 1] === '?') {
      const rest = source.slice(i + 2, i + 4);
      if (rest.startsWith('=') || rest.startsWith('!')) return 'a lookahead';
      if (rest === '<=' || rest === '<!') return 'a lookbehind';
    }
  }
  return undefined;
}

/** The sentence that refuses a pattern for what it uses. */
export function unsupportedSentence(label: string, quoted: string, construct: string): string {
  return `The ${label} pattern ${quoted} uses ${construct}, which the linear-time engine does not run (patterns are RE2: no backreferences or lookaround).`;
}
