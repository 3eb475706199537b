// A company's settings, stored as JSON text (settings_json).

/**
 * The stored settings as an object: text that is not JSON, or JSON that is not an object (`null`, a
 * list: written into the database by hand or by another tool), reads as no settings. Every page
 * reads them for the company's time zone, so one bad row had broken every page of the company.
 */
export function parseSettings(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
