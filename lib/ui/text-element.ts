/**
 * Text as a DOM node, for Leaflet content: Leaflet sets a string as HTML, and a field's or a zone's
 * name is whatever a user or an imported file wrote.
 */
export function textElement(text: string): HTMLElement {
  const el = document.createElement('span');
  el.textContent = text;
  return el;
}
