import {
  compactExportJson,
  exportJsonPaths,
  exportPlanPaths,
} from "@keepsake/contracts/instagram-export";
import { TextWriter, Uint8ArrayReader, Uint8ArrayWriter, ZipReader } from "@zip.js/zip.js";
import { expect } from "vitest";
import type { TestApp } from "./app.ts";
import type { SandboxedApp } from "./sandbox.ts";

/** An export opened as the browser opens it: what the plan sends, and each file's bytes. */
export interface OpenedExport {
  paths: string[];
  files: { path: string; text: string }[];
  bytes(path: string): Promise<Uint8Array>;
}

/** An item of the import's plan, as the browser reads it. */
export type PlanItem = {
  id: string;
  kind: string;
  status: string;
  caption: string | null;
  taken_at: string;
  files: { key: string; uri: string; name: string; done: boolean }[];
};

/**
 * Downloads a demo account's export from the sandbox and opens it as the browser does; `raw`:
 * every path of the archive and each JSON file's text as it is (what an older browser sent).
 */
export async function openExport(
  t: Pick<SandboxedApp, "sandbox">,
  account: string,
  query = "",
  { raw = false } = {},
): Promise<OpenedExport> {
  const res = await fetch(`${t.sandbox.url}/_control/instagram/${account}/export.zip${query}`);
  expect(res.status).toBe(200);
  const zip = new ZipReader(new Uint8ArrayReader(new Uint8Array(await res.arrayBuffer())));
  const entries = await zip.getEntries();
  const byPath = new Map(entries.map((e) => [e.filename, e]));
  // The browser sends the JSON files' paths (an HTML export's pages) and their compact text
  // (apps/web's export-reader).
  const all = entries.map((e) => e.filename);
  const paths = raw ? all : exportPlanPaths(all);
  const files = [];
  for (const path of exportJsonPaths(paths)) {
    const entry = byPath.get(path);
    if (entry && !entry.directory) {
      const text = await entry.getData(new TextWriter());
      files.push({ path, text: raw ? text : compactExportJson(text) });
    }
  }
  return {
    paths,
    files,
    async bytes(path) {
      const entry = byPath.get(path);
      if (!entry || entry.directory) throw new Error(`no ${path}`);
      return entry.getData(new Uint8ArrayWriter());
    },
  };
}

/** The import's plan for the account, as the browser asks for it. */
export const planImport = (
  t: Pick<TestApp, "call">,
  token: string,
  accountId: string,
  ex: Pick<OpenedExport, "paths" | "files">,
) =>
  t.call("POST", `/api/import/accounts/${accountId}/plan`, {
    token,
    body: { paths: ex.paths, files: ex.files },
  });

/** One file of an item sent as the browser sends it. */
export const putImportFile = (
  via: Pick<TestApp, "app">,
  token: string,
  itemId: string,
  key: string,
  body: Uint8Array,
) =>
  via.app.inject({
    method: "PUT",
    url: `/api/import/items/${itemId}/files/${encodeURIComponent(key)}`,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/octet-stream",
    },
    payload: Buffer.from(body),
  });
