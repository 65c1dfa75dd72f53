import { useState } from "react";
import { Navigate, Outlet, useLocation } from "react-router";
import { useAuth } from "../lib/auth.tsx";
import { Spinner } from "./spinner.tsx";

/**
 * SPEC §2: protected screens send visitors to /login, remembering where they came from. A user
 * whose session ends on purpose while on one (Delete my account, Log out) goes where the ending
 * says instead (the home page): this is the one navigation, so nothing races it to /login.
 */
export function RequireAuth() {
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
    return <Navigate to="/login" replace state={{ from: location }} />;
  }
  return <Outlet />;
}
