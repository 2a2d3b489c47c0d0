/**
 * Text the editor did not write (node, window, workflow and job names, the
 * service's messages, URLs) reaches the page as text only. Node-RED renders
 * some of what it is given as HTML: a string message of RED.notify, the
 * reason a validator returns (the edit dialog's tooltip). These two helpers
 * are for those places; everywhere else the editor code sets textContent or
 * jQuery's .text().
 */

/** A notification's message as one paragraph of text (RED.notify wraps a string in <p> and sets it as HTML). */
export function noticeText(text: string): JQuery {
  return $('<p>').text(text);
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * For a string Node-RED puts into an element's content as HTML and that cannot
 * be an element: a validator's reason, which the edit dialog's tooltip sets
 * with .html() (the canvas's error badge shows the same string as text).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>]/g, (c) => ENTITIES[c]);
}
