import { lazy, Suspense, useState, useSyncExternalStore } from "react";
import { useAuth } from "../lib/auth.tsx";
import { NavLink, useLocation, useNavigate } from "../lib/navigation.tsx";
import { avatarInitial, displayName } from "../lib/user.ts";
import { Icon } from "./icons.tsx";
import { Logo } from "./logo.tsx";

// The bell (and its API schemas) loads after the header: the app shell stays small.
const NotificationBell = lazy(() =>
  import("./notification-bell.tsx").then((m) => ({ default: m.NotificationBell })),
);

/** Where the header folds its links into the menu (styles/layout.css). */
const NARROW = "(max-width: 900px)";

/** Whether the screen is narrow: the bell then sits beside the menu button, not inside the menu. */
function useNarrowScreen(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const query = window.matchMedia?.(NARROW);
      query?.addEventListener("change", changed);
      return () => query?.removeEventListener("change", changed);
    },
    () => window.matchMedia?.(NARROW).matches ?? false,
    () => false,
  );
}

function Bell() {
  return (
    <Suspense fallback={null}>
      <NotificationBell />
    </Suspense>
  );
}

const navClass = ({ isActive }: { isActive: boolean }) =>
  isActive ? "nav-link nav-link-active" : "nav-link";

interface NavItem {
  to: string;
  label: string;
}

const memberLinks: readonly NavItem[] = [
  { to: "/dashboard", label: "Dashboard" },
  { to: "/backups", label: "Backups" },
  { to: "/settings", label: "Settings" },
  { to: "/pricing", label: "Pricing" },
];
const adminLink: NavItem = { to: "/admin", label: "Admin" };
const visitorLinks: readonly NavItem[] = [
  { to: "/pricing", label: "Pricing" },
  { to: "/login", label: "Sign In" },
];

function NavLinks({ links }: { links: readonly NavItem[] }) {
  return links.map(({ to, label }) => (
    <NavLink key={to} to={to} className={navClass}>
      {label}
    </NavLink>
  ));
}

export function SiteHeader() {
  const { user, logout, isLoading } = useAuth();
  // A phone shows the unread count without opening the menu (issue 36); one bell either way.
  const narrow = useNarrowScreen();
  const location = useLocation();
  const navigate = useNavigate();
  // The mobile menu belongs to the page it was opened on: any navigation closes it.
  const here = `${location.pathname}${location.hash}`;
  const [menu, setMenu] = useState({ open: false, at: here });
  if (menu.at !== here) setMenu({ open: false, at: here });
  const menuOpen = menu.open && menu.at === here;

  const onLogout = async () => {
    await logout();
    navigate("/");
  };

  return (
    <header className="site-header">
      <div className="container header-inner">
        <Logo />
        {user && narrow && (
          <div className="header-bell">
            <Bell />
          </div>
        )}
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="primary-nav"
          aria-label={menuOpen ? "Close menu" : "Open menu"}
          onClick={() => setMenu({ open: !menuOpen, at: here })}
        >
          {menuOpen ? <Icon.Close /> : <Icon.Menu />}
        </button>
        <nav
          id="primary-nav"
          aria-label="Main"
          className={menuOpen ? "primary-nav primary-nav-open" : "primary-nav"}
        >
          {user ? (
            <>
              <NavLinks links={user.is_admin ? [...memberLinks, adminLink] : memberLinks} />
              <div className="nav-user">
                {!narrow && <Bell />}
                <span className="avatar" title={displayName(user)} data-testid="avatar-initial">
                  {avatarInitial(user)}
                </span>
                <span className="nav-user-name">{displayName(user)}</span>
                <button type="button" className="btn btn-ghost btn-sm" onClick={onLogout}>
                  Logout
                </button>
              </div>
            </>
          ) : isLoading ? (
            // A signed-in visitor's profile is on its way: no "Sign In" flash meanwhile.
            <span className="nav-pending" aria-busy="true" data-testid="nav-pending" />
          ) : (
            <>
              {location.pathname === "/" && (
                <a href="#features" className="nav-link">
                  Features
                </a>
              )}
              <NavLinks links={visitorLinks} />
              <NavLink to="/register" className="btn btn-primary btn-sm">
                Get Started
              </NavLink>
            </>
          )}
        </nav>
      </div>
    </header>
  );
}
