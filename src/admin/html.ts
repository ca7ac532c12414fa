/** Small HTML helpers of the admin pages: escaping and times a person reads at a glance. */

/** HTML-escapes text. */
export function esc(v: unknown): string {
  return String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!);
}

/** "3 min ago", "in 2 h", "just now" for an ISO time, relative to `now`. */
export function relative(iso: string, now: Date): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  const s = Math.round((now.getTime() - t) / 1000);
  const a = Math.abs(s);
  const span = a < 10 ? "" : a < 60 ? `${a} s` : a < 3600 ? `${Math.round(a / 60)} min` : a < 86400 * 2 ? `${Math.round(a / 3600)} h` : `${Math.round(a / 86400)} days`;
  if (!span) return "just now";
  return s >= 0 ? `${span} ago` : `in ${span}`;
}

/** A <time> showing the relative time, with the exact time on hover. */
export function when(iso: string | null | undefined, now: Date, none = "never"): string {
  if (!iso) return esc(none);
  return `<time datetime="${esc(iso)}" title="${esc(iso)}">${esc(relative(iso, now))}</time>`;
}

/** "1.5 min", "2 h 10 min" for a duration in seconds. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "—";
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}
