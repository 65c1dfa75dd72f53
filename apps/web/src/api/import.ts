import {
  type ImportFileResult,
  type ImportPlan,
  type ImportPlanRequest,
  importFileResult,
  importPlan,
} from "@keepsake/contracts/import";
import { api } from "./client.ts";

/** Sends the export's JSON (never its media): the server answers the preview and what is left. */
export async function planImport(accountId: string, body: ImportPlanRequest): Promise<ImportPlan> {
  const { data } = await api.post<unknown>(
    `/import/accounts/${encodeURIComponent(accountId)}/plan`,
    body,
    { timeout: 120_000 },
  );
  return importPlan.parse(data);
}

/** One media file, read from the ZIP in this browser, streamed through Keepsake into Drive. */
export async function putImportFile(
  itemId: string,
  key: string,
  file: Blob,
  onProgress: (sent: number) => void,
  signal: AbortSignal,
): Promise<ImportFileResult> {
  const { data } = await api.put<unknown>(
    `/import/items/${encodeURIComponent(itemId)}/files/${encodeURIComponent(key)}`,
    file,
    {
      headers: { "Content-Type": "application/octet-stream" },
      timeout: 0,
      signal,
      onUploadProgress: (e) => onProgress(e.loaded),
    },
  );
  return importFileResult.parse(data);
}
