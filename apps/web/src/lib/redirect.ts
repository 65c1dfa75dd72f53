/** Where a full-page navigation is already under way (a second one would abort the first). */
let leavingFor: string | null = null;
if (typeof window !== "undefined") {
  // Back on this page from the history cache: nothing is under way any more.
  window.addEventListener("pageshow", () => {
    leavingFor = null;
  });
}

/**
 * A full-page navigation (drops every in-memory state). Kept apart so tests can replace it.
 * Several failing calls at once (each 401 of the dashboard's polling) navigate once.
 */
export function hardRedirect(path: string): void {
  if (leavingFor === path) return;
  leavingFor = path;
  window.location.assign(path);
}
