/**
 * How many end-to-end files run at once (E2E_WORKERS, default 2): each has a Keepsake of its own
 * and a browser context of the one shared Chromium.
 */
export const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS) || 2);
