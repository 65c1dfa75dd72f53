import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// Screens are lazy chunks (router.tsx): the first render of a route waits for its module,
// which on a busy machine takes longer than Testing Library's default second.
configure({ asyncUtilTimeout: 5_000 });

afterEach(() => {
  cleanup();
  window.localStorage.clear();
});
