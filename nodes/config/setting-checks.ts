import { checkBaseUrl, UUID_PATTERN, UUID_RULE } from '../../lib/rules';

/**
 * The rules of the settings the field table reads as typed (the URLs, the
 * space id), for the runtime and the dialog alike. Browser-safe.
 */

/** What is wrong with a base URL, completing "<label> …"; an optional one may be empty. */
export function urlProblem(value: string, required: boolean): string | undefined {
  if (!required && value.trim() === '') return undefined;
  const checked = checkBaseUrl(value);
  return checked.ok ? undefined : checked.problem;
}

/** What is wrong with a space id, completing "Space ID …". */
export function spaceIdProblem(value: string): string | undefined {
  const text = value.trim();
  if (UUID_PATTERN.test(text)) return undefined;
  return text === '' ? 'is required' : UUID_RULE;
}
