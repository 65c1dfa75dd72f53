import type { DataDeletionStatus } from "@keepsake/contracts";
import { useQuery } from "@tanstack/react-query";
import { api, errorDetail } from "../../api/client.ts";
import { AuthCard } from "../../components/auth-card.tsx";
import { Link, useSearchParams } from "../../lib/navigation.tsx";

const PROVIDER = { instagram: "Instagram", facebook: "Facebook" } as const;

/**
 * /data-deletion?code=…: the status URL Meta shows a person who asked, from Instagram's or
 * Facebook's settings, for Keepsake to delete their data. No sign-in needed.
 */
export function DataDeletionPage() {
  const [params] = useSearchParams();
  const code = params.get("code") ?? "";
  const request = useQuery({
    queryKey: ["data-deletion", code],
    queryFn: async () =>
      (await api.get<unknown>(`/meta/data-deletion/${encodeURIComponent(code)}`))
        .data as DataDeletionStatus,
    enabled: code !== "",
    retry: false,
  });
  const r = request.data;
  return (
    <AuthCard
      title="Data deletion request"
      heading="Data deletion request"
      lead={code ? `Confirmation code ${code}` : "No confirmation code was given."}
      footer={<Link to="/">Back to Keepsake</Link>}
    >
      {request.isError ? (
        <div className="form-error" role="alert">
          {errorDetail(request.error, "This data deletion request could not be found.")}
        </div>
      ) : r ? (
        <div className="form-success" role="status">
          <p>
            Completed on {new Date(r.completed_at).toLocaleString()}. At your request through{" "}
            {PROVIDER[r.provider]}, Keepsake erased its records of{" "}
            {r.accounts_erased === 1 ? "1 account" : `${r.accounts_erased} accounts`}: posts, backup
            records, engagement history and the account's access.
          </p>
          <p>The files Keepsake copied into your own storage belong to you and were not touched.</p>
        </div>
      ) : code ? (
        <p>Loading…</p>
      ) : null}
    </AuthCard>
  );
}
