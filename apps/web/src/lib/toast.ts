/**
 * The app's toasts (SPEC §2). The library (react-toastify) loads on the first toast, not with
 * the app shell (issue 27): calls made while it loads are replayed in order once it is there,
 * and the container (`<Toasts />`) appears then. The library itself keeps the toasts shown
 * before its container mounts.
 */
import type { Id, ToastContent, ToastOptions, UpdateOptions } from "react-toastify";

type Library = typeof import("./toast-library.tsx");

let library: Library | null = null;
let loading: Promise<Library> | null = null;
const waiting: ((lib: Library) => void)[] = [];
const listeners = new Set<() => void>();

/** Loads the library (once); resolves when it is there. */
export function loadToasts(): Promise<Library> {
  loading ??= import("./toast-library.tsx").then((lib) => {
    library = lib;
    for (const call of waiting.splice(0)) call(lib);
    for (const listener of listeners) listener();
    return lib;
  });
  return loading;
}

/** The library once loaded (for `<Toasts />`), and a way to hear when it is. */
export const toastLibrary = {
  get: (): Library | null => library,
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

function run(call: (lib: Library) => void): void {
  if (library) {
    call(library);
    return;
  }
  waiting.push(call);
  void loadToasts();
}

const show =
  (kind: "success" | "error" | "info" | "warning") =>
  (content: ToastContent, options?: ToastOptions): void =>
    run((lib) => {
      lib.toast[kind](content, options);
    });

export const toast = {
  success: show("success"),
  error: show("error"),
  info: show("info"),
  warning: show("warning"),
  /** Closes the toast `id` (every toast without one). */
  dismiss(id?: Id): void {
    run((lib) => lib.toast.dismiss(id));
  },
  /** Whether the toast `id` is on screen (none is before the library has loaded). */
  isActive(id: Id): boolean {
    return library ? library.toast.isActive(id) : false;
  },
  update(id: Id, options: UpdateOptions): void {
    run((lib) => lib.toast.update(id, options));
  },
};
