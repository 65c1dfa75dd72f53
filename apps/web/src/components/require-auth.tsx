import { type ReactNode, useState } from "react";
import { useAuth } from "../lib/auth.tsx";
import { Navigate, useLocation } from "../lib/navigation.tsx";
import { Spinner } from "./spinner.tsx";

/**
 * SPEC §2: protected screens send visitors to /login, remembering where they came from. A user
 * whose session ends on purpose while on one (Delete my account, Log out) goes where the ending
 * says instead (the home page): this is the one navigation, so nothing races it to /login.
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { user, isLoading, signedOutTo } = useAuth();
  const location = useLocation();
  // Whether this protected area was shown signed in; a later visit as a visitor starts afresh.
  const [wasSignedIn, setWasSignedIn] = useState(false);
  if (user && !wasSignedIn) setWasSignedIn(true);
  if (isLoading) {
    return (
      <div className="page-loading">
        <Spinner />
      </div>
    );
  }
  if (!user) {
    if (wasSignedIn && signedOutTo) return <Navigate to={signedOutTo} replace />;
    const { pathname, search, hash } = location;
    return <Navigate to="/login" replace state={{ from: { pathname, search, hash } }} />;
  }
  return children;
}
