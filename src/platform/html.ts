const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text (or any value, `null` as empty) made safe for HTML content and quoted attributes. */
export const escapeHtml = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (ch) => ENTITIES[ch]);
