/** What one input message turns into: all pages in one array, one page, or one message per workflow. */
export const MODES = ['all', 'page', 'split'] as const;
