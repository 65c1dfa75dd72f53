import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// Screens are lazy chunks (router.tsx): the first render of a route waits for its module,
// which on a busy machine takes longer than Testing Library's default second.
configure({ asyncUtilTimeout: 5_000 });

// jsdom has <dialog> but not its methods. The modal (components/modal.tsx) opens it with
// showModal() and closes it with close(): here they set `open` and fire "close" as a browser
// does. What only a browser does (the inert page behind, focus kept inside and given back) is
// tested in Chromium (e2e/tests/api-keys.test.ts).
if (typeof HTMLDialogElement.prototype.showModal !== "function") {
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.open = true;
  };
  HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
    if (!this.open) return;
    this.open = false;
    this.dispatchEvent(new Event("close"));
  };
}

afterEach(() => {
  cleanup();
  window.localStorage.clear();
});
