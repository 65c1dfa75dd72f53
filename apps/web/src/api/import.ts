import type { ImportFileResult, ImportPlan, ImportPlanRequest } from "@keepsake/contracts/import";
import {
  API_BASE,
  ApiError,
  api,
  handleUnauthorized,
  parseBody,
  requestHeaders,
} from "./client.ts";

/** Sends the export's JSON (never its media): the server answers the preview and what is left. */
export async function planImport(accountId: string, body: ImportPlanRequest): Promise<ImportPlan> {
  const { data } = await api.post<unknown>(
    `/import/accounts/${encodeURIComponent(accountId)}/plan`,
    body,
    { timeout: 120_000 },
  );
  return data as ImportPlan;
}

/** One media file, read from the ZIP in this browser, streamed through Keepsake into Drive. */
export async function putImportFile(
  itemId: string,
  key: string,
  file: Blob,
  onProgress: (sent: number) => void,
  signal: AbortSignal,
): Promise<ImportFileResult> {
  const path = `/import/items/${encodeURIComponent(itemId)}/files/${encodeURIComponent(key)}`;
  return (await upload(path, file, onProgress, signal)) as ImportFileResult;
}

/**
 * PUT of a file with the API client's headers and 401 handling, and no timeout. XMLHttpRequest,
 * not fetch: only it tells how much of the body has been sent.
 */
function upload(
  path: string,
  file: Blob,
  onProgress: (sent: number) => void,
  signal: AbortSignal,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const failure = (message: string, status?: number, data?: unknown) =>
      new ApiError(message, { status, data, method: "PUT", path });
    xhr.open("PUT", `${API_BASE}${path}`);
    for (const [name, value] of Object.entries(requestHeaders())) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      const data = parseBody(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) return resolve(data);
      const error = failure(`Request failed with status code ${xhr.status}`, xhr.status, data);
      handleUnauthorized(error);
      reject(error);
    };
    xhr.onerror = () => reject(failure("Network Error"));
    const aborted = () => reject(signal.reason ?? new DOMException("Aborted", "AbortError"));
    xhr.onabort = aborted;
    if (signal.aborted) return aborted();
    signal.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}
