/**
 * The app's routing words, on wouter (issue 27: a router of 2 KB instead of 30). The browser's
 * history is the one location: paths, query, hash and `history.state`.
 */
import type { ComponentProps } from "react";
import { Redirect, useLocation as useWouterLocation, Link as WouterLink } from "wouter";
import { useHistoryState, useLocationProperty } from "wouter/use-browser-location";

export { Link, Route, Router, Switch, useSearchParams } from "wouter";

export interface Location {
  pathname: string;
  /** "" or "?…" */
  search: string;
  /** "" or "#…" */
  hash: string;
  /** What the navigation that led here carried (`history.state`). */
  state: unknown;
}

export interface NavigateOptions {
  replace?: boolean;
  state?: unknown;
}

const currentHash = () => window.location.hash;
const currentSearch = () => window.location.search;
const none = () => "";

/** The current location; re-renders on every navigation. */
export function useLocation(): Location {
  const [pathname] = useWouterLocation();
  const search = useLocationProperty(currentSearch, none);
  const hash = useLocationProperty(currentHash, none);
  const state: unknown = useHistoryState();
  return { pathname, search, hash, state };
}

/** Navigates in the app (history push, or replace), optionally carrying `state`. */
export function useNavigate(): (to: string, options?: NavigateOptions) => void {
  return useWouterLocation()[1];
}

/** Navigates on render, once (`to`, `replace`, `state`): a redirect. */
export const Navigate = Redirect;

/** Whether `path` is `to` or below it (a menu's section). */
export function isActivePath(path: string, to: string): boolean {
  const base = to.replace(/\/$/, "");
  return path === to || path.startsWith(`${base}/`);
}

type NavLinkProps = Omit<ComponentProps<"a">, "className" | "href"> & {
  to: string;
  className: string | ((state: { isActive: boolean }) => string);
};

/** A link that knows when it leads to the current page (`aria-current="page"`). */
export function NavLink({ to, className, ...rest }: NavLinkProps) {
  const [path] = useWouterLocation();
  const isActive = isActivePath(path, to);
  return (
    <WouterLink
      {...rest}
      to={to}
      className={typeof className === "function" ? className({ isActive }) : className}
      aria-current={isActive ? "page" : undefined}
    />
  );
}
