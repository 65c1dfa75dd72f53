import { type ComponentType, type LazyExoticComponent, lazy } from "react";

/** A page component loaded on first render from its module's named export `name`. */
export function lazyPage<K extends string>(
  load: () => Promise<Record<K, ComponentType>>,
  name: K,
): LazyExoticComponent<ComponentType> {
  return lazy(() => load().then((m) => ({ default: m[name] })));
}
