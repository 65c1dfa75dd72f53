import { Component, type ReactNode } from "react";
import { useLocation } from "../lib/navigation.tsx";

interface State {
  error: unknown;
  /** The page the error happened on: another page starts afresh. */
  at: string | null;
}

/**
 * SPEC §8: an error while rendering a screen shows 'Unexpected Application Error!' and the
 * error's message, as React Router's default error screen did.
 */
class Boundary extends Component<{ at: string; children: ReactNode }, State> {
  override state: State = { error: null, at: null };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error ?? new Error("Unknown error") };
  }

  static getDerivedStateFromProps(props: { at: string }, state: State): Partial<State> | null {
    if (state.error && state.at !== null && state.at !== props.at) return { error: null, at: null };
    if (state.error && state.at === null) return { at: props.at };
    return null;
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    const message =
      error instanceof Error ? error.message : typeof error === "string" ? error : String(error);
    return (
      <>
        <h2>Unexpected Application Error!</h2>
        <h3 style={{ fontStyle: "italic" }}>{message}</h3>
      </>
    );
  }
}

export function ErrorBoundary({ children }: { children: ReactNode }) {
  const { pathname, search } = useLocation();
  return <Boundary at={`${pathname}${search}`}>{children}</Boundary>;
}
