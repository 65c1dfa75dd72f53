/**
 * What `react` resolves to in the production build: Preact's React-compatible API (preact/compat,
 * ~10 KB gzipped where react-dom alone is ~65 KB), plus the one React 19 hook React Router's
 * RouterProvider calls that preact/compat lacks. `useOptimistic` there only matters with
 * `useTransitions` (which this app never sets): without it the router renders the committed
 * state and never calls the setter. JavaScript, not TypeScript: preact/compat's types are an
 * `export =` namespace, which `export *` cannot re-export.
 */
export * from "preact/compat";
export { default } from "preact/compat";

/** React 19's useOptimistic without transitions: the committed state, and a setter unused here. */
export function useOptimistic(state) {
  return [state, () => {}];
}
