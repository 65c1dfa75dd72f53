import type { InstagramAccount } from "@keepsake/contracts";
import "./connections.css";

type Via = InstagramAccount["connected_via"];

/**
 * What each way of connecting gives (issue 36), said where the choice is made and on each
 * account: stories come only through Facebook Login; comments need a permission of their own,
 * which Instagram Login asks for when comments are turned on and Facebook Login does not include.
 */
export const LOGIN_TRADEOFFS: Record<
  Via,
  { label: string; gives: string[]; lacks: string[]; needs: string | null }
> = {
  instagram: {
    label: "Instagram Login",
    gives: ["Posts, reels and carousels", "Comments, once you allow the comments permission"],
    lacks: ["No stories: Instagram does not give them to this login"],
    needs: null,
  },
  facebook: {
    label: "Facebook Login",
    gives: ["Posts, reels, carousels and stories"],
    lacks: [
      "No comments permission in this login: turning comments on asks Facebook for it separately",
    ],
    needs: "Needs a Facebook Page linked to the Instagram account",
  },
};

/** The list under a connect button: what that login backs up and what it does not. */
export function LoginTradeoffs({ via }: { via: Via }) {
  const t = LOGIN_TRADEOFFS[via];
  return (
    <ul
      className="login-tradeoffs"
      aria-label={`What ${t.label} backs up`}
      data-testid={`tradeoffs-${via}`}
    >
      {t.gives.map((g) => (
        <li key={g} className="login-gives">
          <span aria-hidden="true">✓</span> {g}
        </li>
      ))}
      {t.lacks.map((l) => (
        <li key={l} className="login-lacks">
          <span aria-hidden="true">✗</span> {l}
        </li>
      ))}
      {t.needs && (
        <li className="login-needs">
          <span aria-hidden="true">•</span> {t.needs}
        </li>
      )}
    </ul>
  );
}

/** One line on an account's card: the login it is connected with and what that gives. */
export function AccountLoginSummary({
  account,
}: {
  account: Pick<InstagramAccount, "connected_via">;
}) {
  return (
    <p className="account-login" data-testid="account-login">
      {account.connected_via === "facebook" ? (
        <>
          <strong>Facebook Login:</strong> posts, reels, carousels and stories. Comments need
          Facebook's comments permission.
        </>
      ) : (
        <>
          <strong>Instagram Login:</strong> posts, reels, carousels, and comments once allowed.{" "}
          <strong>No stories</strong> (they need Facebook Login).
        </>
      )}
    </p>
  );
}
