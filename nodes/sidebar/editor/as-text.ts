/**
 * Text the editor did not write (node, window, workflow and job names, the
 * service's messages, URLs) reaches the page as text only: the editor code
 * sets textContent or jQuery's .text(), and where Node-RED would parse a
 * string as HTML it is given an element built that way instead.
 */

/** A notification's message as one paragraph of text (RED.notify wraps a string in <p> and sets it as HTML). */
export function noticeText(text: string): JQuery {
  return $('<p>').text(text);
}
