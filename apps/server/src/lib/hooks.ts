/** A listener of a hook: what an area built later does when an earlier area reports an event. */
export type Listener<A extends unknown[]> = (...args: A) => Promise<unknown>;

/** The side of a hook an area offers to the areas built after it: they add their listener. */
export interface Listen<A extends unknown[]> {
  on(listener: Listener<A>): void;
}

/**
 * An event an area reports to areas built after it (module.ts: an upstream area never names a
 * downstream one). Calling it runs the listeners in the order they were added, each awaited;
 * a listener's error reaches the caller. With no listener it does nothing.
 */
export interface Hook<A extends unknown[]> extends Listen<A> {
  (...args: A): Promise<void>;
}

export function createHook<A extends unknown[]>(): Hook<A> {
  const listeners: Listener<A>[] = [];
  const hook = async (...args: A) => {
    for (const listener of listeners) await listener(...args);
  };
  return Object.assign(hook, {
    on(listener: Listener<A>) {
      listeners.push(listener);
    },
  });
}
