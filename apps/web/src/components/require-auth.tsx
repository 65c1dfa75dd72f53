import { Navigate, Outlet, useLocation } from "react-router";
import { useAuth } from "../lib/auth.tsx";
import { Spinner } from "./spinner.tsx";

/** SPEC §2: protected screens send visitors to /login, remembering where they came from. */
export function RequireAuth() {
  const { user, isLoading } = useAuth();
  const location = useLocation();
  if (isLoading) {
    return (
      <div className="page-loading">
        <Spinner />
      </div>
    );
  }
  if (!user) return <Navigate to="/login" replace state={{ from: location }} />;
  return <Outlet />;
}
