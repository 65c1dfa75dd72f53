import { type S3DestinationForm, s3DestinationForm } from "@keepsake/contracts/destination-forms";
import { useState } from "react";
import { errorDetail } from "../../api/client.ts";
import { useSaveS3, useTestS3 } from "../../api/destinations.ts";
import { PasswordField, TextField } from "../../components/form-field.tsx";
import { useZodForm } from "../../lib/zod-form.ts";

const EMPTY: S3DestinationForm = {
  endpoint: "",
  region: "",
  bucket: "",
  prefix: "",
  access_key_id: "",
  secret_access_key: "",
};

/** What the last test or save answered: the server's message, or why it refused. */
type Outcome = { ok: boolean; text: string } | null;

/**
 * Settings → Storage → S3 storage (issue 38): the bucket and its keys. "Test connection" has the
 * server write, read back and delete a probe object; "Save" keeps them (sealed at rest).
 */
export function S3Form({ onClose }: { onClose: () => void }) {
  const { field, handleSubmit } = useZodForm<S3DestinationForm>(s3DestinationForm, {
    defaultValues: EMPTY,
  });
  const test = useTestS3();
  const save = useSaveS3();
  const [outcome, setOutcome] = useState<Outcome>(null);
  const busy = test.isPending || save.isPending;

  const onTest = handleSubmit(async (values) => {
    setOutcome(null);
    try {
      setOutcome({ ok: true, text: await test.mutateAsync(values) });
    } catch (error) {
      setOutcome({ ok: false, text: errorDetail(error, "The connection test failed") });
    }
  });
  const onSave = handleSubmit(async (values) => {
    setOutcome(null);
    try {
      await save.mutateAsync(values);
      onClose();
    } catch (error) {
      setOutcome({ ok: false, text: errorDetail(error, "Failed to save S3 storage") });
    }
  });

  // Ids of their own: the page has other forms.
  const input = (name: keyof S3DestinationForm) => ({ ...field(name), id: `s3-${name}` });
  return (
    <form className="s3-form" onSubmit={onSave} noValidate aria-label="S3 storage">
      <TextField
        label="Endpoint"
        type="url"
        inputMode="url"
        autoComplete="off"
        placeholder="https://s3.eu-west-1.amazonaws.com"
        {...input("endpoint")}
      />
      <div className="s3-form-row">
        <TextField label="Region" autoComplete="off" placeholder="eu-west-1" {...input("region")} />
        <TextField
          label="Bucket"
          autoComplete="off"
          placeholder="my-backups"
          {...input("bucket")}
        />
      </div>
      <TextField
        label="Prefix (optional)"
        autoComplete="off"
        placeholder="keepsake/"
        {...input("prefix")}
      />
      <TextField label="Access key ID" autoComplete="off" {...input("access_key_id")} />
      <PasswordField
        label="Secret access key"
        autoComplete="new-password"
        {...input("secret_access_key")}
      />
      <p className="field-hint">
        Keepsake needs to list, read, write and delete objects in this bucket. The secret is stored
        encrypted and never shown again.
      </p>
      {outcome && (
        <p
          className={outcome.ok ? "s3-form-outcome s3-form-ok" : "s3-form-outcome s3-form-failed"}
          role={outcome.ok ? "status" : "alert"}
        >
          {outcome.text}
        </p>
      )}
      <div className="connection-card-actions">
        <button type="button" className="btn btn-secondary btn-sm" onClick={onTest} disabled={busy}>
          {test.isPending ? "Testing..." : "Test connection"}
        </button>
        <button type="submit" className="btn btn-primary btn-sm" disabled={busy}>
          {save.isPending ? "Saving..." : "Save"}
        </button>
        <button type="button" className="btn btn-ghost btn-sm" onClick={onClose} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
