import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense } from "react";
import { StaticPage } from "../../components/static-page.tsx";
import { Link } from "../../lib/navigation.tsx";

const ApiReference = lazy(() =>
  import("./api-reference.tsx").then((m) => ({ default: m.ApiReference })),
);

type OpenApiDocument = Record<string, unknown> & { servers?: { url: string }[] };

/** The public API's OpenAPI document, served by the API itself (generated from its routes). */
function useOpenApiDocument() {
  return useQuery({
    queryKey: ["openapi", "v1"],
    queryFn: async (): Promise<OpenApiDocument> => {
      const res = await fetch("/api/v1/openapi.json", { headers: { Accept: "application/json" } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return (await res.json()) as OpenApiDocument;
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** SPEC §2 /docs: base URL with /v1 (from the server's APP_URL), keys, curl, the reference. */
export function DocsPage() {
  const doc = useOpenApiDocument();
  const baseUrl = doc.data?.servers?.[0]?.url ?? `${window.location.origin}/api/v1`;
  return (
    <StaticPage
      eyebrow="Developers"
      title="API Documentation"
      lead="Automate your backups and read your archive programmatically with the Keepsake API."
    >
      <div className="prose">
        <h2>Getting started</h2>
        <p>
          An API key can be generated from your dashboard settings: open{" "}
          <Link to="/settings?tab=api-keys">Settings → API keys</Link>, name the key and copy it (it
          is shown once). API access is part of the Pro and Agency plans. Send the key as a bearer
          token with every request, and keep it secret: it acts as you.
        </p>
        <h2>Base URL</h2>
        <pre className="code-block">
          <code data-testid="api-base-url">{baseUrl}</code>
        </pre>
        <h2>Try it</h2>
        <pre className="code-block">
          <code>{`export KEEPSAKE_API_KEY=ks_live_...   # from Settings → API keys

curl "${baseUrl}/posts?limit=5" \\
  -H "Authorization: Bearer $KEEPSAKE_API_KEY"

curl -X POST "${baseUrl}/sync" \\
  -H "Authorization: Bearer $KEEPSAKE_API_KEY" \\
  -H "Idempotency-Key: $(uuidgen)"`}</code>
        </pre>
        <p>
          Outgoing webhooks (being told when a backup fails) are planned; until then, poll{" "}
          <code>/backups?status=failed</code>. Lists are newest first and paged with a cursor: pass
          a page&apos;s <code>next_cursor</code> as <code>cursor</code> to get the next one. Each
          key may make 60 requests a minute; a <code>429</code> answer says when to retry (
          <code>Retry-After</code>
          ). Errors are <code>{`{"detail": "..."}`}</code>.
        </p>
        <p>
          The machine-readable description is at{" "}
          <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).{" "}
          <Link to="/dashboard">Go to your dashboard</Link>.
        </p>
        <h2>Reference</h2>
      </div>
      {doc.isError && <p className="muted">The API reference could not be loaded.</p>}
      {doc.data && (
        <Suspense fallback={<p className="muted">Loading the reference...</p>}>
          <ApiReference document={doc.data} />
        </Suspense>
      )}
    </StaticPage>
  );
}
