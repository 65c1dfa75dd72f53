/** A full-page navigation (drops every in-memory state). Kept apart so tests can replace it. */
export function hardRedirect(path: string): void {
  window.location.assign(path);
}
