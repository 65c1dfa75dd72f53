import { type ApiKey, type CreatedApiKey, MAX_API_KEYS } from "@keepsake/contracts";
import { type FormEvent, useState } from "react";
import {
  useApiKeysQuery,
  useCreateApiKeyMutation,
  useRevokeApiKeyMutation,
} from "../../api/api-keys.ts";
import { ConfirmDialog } from "../../components/modal.tsx";
import { formatDate, formatDateTime } from "../../lib/format.ts";
import { Link } from "../../lib/navigation.tsx";
import { toast } from "../../lib/toast.ts";
import "./api-keys-tab.css";

/** The new key, shown once in full with a copy button. */
function NewKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
      toast.success("API key copied");
    } catch {
      toast.error("Copy failed: select the key and copy it yourself");
    }
  };
  return (
    <div className="api-key-created" role="status">
      <p>
        <strong>Copy your new key now.</strong> For your security it is shown only once; Keepsake
        keeps only a fingerprint of it.
      </p>
      <div className="api-key-value">
        <code data-testid="new-api-key">{created.key}</code>
        <button type="button" className="btn btn-secondary" onClick={copy}>
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <button type="button" className="btn btn-ghost" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

/** Settings → API keys: create (named), list (name, prefix, created, last used), revoke. */
export function ApiKeysTab() {
  const query = useApiKeysQuery();
  const create = useCreateApiKeyMutation();
  const revoke = useRevokeApiKeyMutation();
  const [name, setName] = useState("");
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [confirming, setConfirming] = useState<ApiKey | null>(null);

  if (query.isPending) return <p className="muted">Loading...</p>;
  if (query.isLoadingError) return <p className="muted">Failed to load API keys</p>;
  const { keys, api_access: access } = query.data;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      toast.error("Give the key a name");
      return;
    }
    create.mutate(trimmed, {
      onSuccess: (key) => {
        setCreated(key);
        setName("");
      },
    });
  };

  return (
    <section className="card api-keys-tab" aria-labelledby="api-keys-heading">
      <h2 id="api-keys-heading" className="section-title">
        API keys
      </h2>
      <p className="muted">
        Script Keepsake with the <Link to="/docs">public API</Link>: send a key as{" "}
        <code>Authorization: Bearer ks_live_…</code>. A key acts as you; keep it secret and revoke
        it when it is no longer needed.
      </p>
      {!access && (
        <div className="api-keys-upgrade" role="note">
          API access is included in the Pro and Agency plans.{" "}
          <Link to="/pricing" className="btn btn-primary">
            Upgrade
          </Link>
        </div>
      )}
      {created && <NewKey created={created} onDone={() => setCreated(null)} />}
      {access && (
        <form className="api-key-form" onSubmit={onSubmit}>
          <label htmlFor="api-key-name">Key name</label>
          <input
            id="api-key-name"
            className="input"
            value={name}
            maxLength={100}
            placeholder="e.g. Nightly export"
            onChange={(e) => setName(e.target.value)}
          />
          <button
            type="submit"
            className="btn btn-primary"
            disabled={create.isPending || keys.length >= MAX_API_KEYS}
          >
            {create.isPending ? "Creating..." : "Create key"}
          </button>
        </form>
      )}
      {access && keys.length >= MAX_API_KEYS && (
        <p className="muted">You have {MAX_API_KEYS} keys, the most allowed. Revoke one first.</p>
      )}
      {keys.length === 0 ? (
        <p className="muted">No API keys yet.</p>
      ) : (
        <table className="api-keys-table stack-narrow">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Created</th>
              <th>Last used</th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td className="api-key-name">{k.name}</td>
                <td data-label="Key">
                  <code>{k.prefix}…</code>
                </td>
                <td data-label="Created">{formatDate(k.created_at)}</td>
                <td data-label="Last used">
                  {k.last_used_at ? formatDateTime(k.last_used_at) : "Never"}
                </td>
                <td>
                  <button
                    type="button"
                    className="btn btn-danger btn-sm"
                    onClick={() => setConfirming(k)}
                    aria-label={`Revoke ${k.name}`}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {confirming && (
        <ConfirmDialog
          title={`Revoke "${confirming.name}"?`}
          confirmLabel="Revoke"
          busy={revoke.isPending}
          onCancel={() => setConfirming(null)}
          onConfirm={() => revoke.mutate(confirming.id, { onSettled: () => setConfirming(null) })}
        >
          <p>Scripts using this key stop working at once. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
