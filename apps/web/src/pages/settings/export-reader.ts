import {
  compactExportJson,
  exportJsonPaths,
  exportPlanPaths,
  type ParsedExport,
  readInstagramExport,
} from "@keepsake/contracts/instagram-export";
import {
  BlobReader,
  BlobWriter,
  configure,
  type Entry,
  TextWriter,
  ZipReader,
} from "@zip.js/zip.js";

// Loaded only by the import screen (its own chunk): the ZIP reader never weighs on the shell.
configure({ useWebWorkers: false });

/** An export opened in this browser: its ZIP (or its parts) read by random access, never whole. */
export interface OpenedExport {
  parsed: ParsedExport;
  /** What the server's plan reads: the paths of the export's JSON files and their compact text. */
  paths: string[];
  files: { path: string; text: string }[];
  /** One media file of the export, extracted in the browser. */
  blob(path: string, type: string): Promise<Blob>;
  close(): Promise<void>;
}

/** Opens the export's ZIP parts, reads its JSON and refuses what is not a JSON export of `username`. */
export async function openExport(parts: File[], username: string): Promise<OpenedExport> {
  const readers = parts.map((p) => new ZipReader(new BlobReader(p)));
  const entries = new Map<string, Entry>();
  try {
    for (const reader of readers) {
      for (const entry of await reader.getEntries()) {
        if (!entry.directory && !entries.has(entry.filename)) entries.set(entry.filename, entry);
      }
    }
  } catch {
    await Promise.all(readers.map((r) => r.close().catch(() => {})));
    throw new Error("This file is not a ZIP Keepsake can read. Choose the ZIP Instagram sent you.");
  }
  const paths = [...entries.keys()];
  const texts = new Map<string, string>();
  const readText = async (path: string) => {
    const known = texts.get(path);
    if (known !== undefined) return known;
    const entry = entries.get(path);
    if (!entry || entry.directory) throw new Error(`missing ${path}`);
    const text = await entry.getData(new TextWriter());
    texts.set(path, text);
    return text;
  };
  const parsed = await readInstagramExport({ paths, readText }, username);
  const files = [];
  for (const path of exportJsonPaths(paths)) {
    files.push({ path, text: compactExportJson(await readText(path)) });
  }
  return {
    parsed,
    paths: exportPlanPaths(paths),
    files,
    async blob(path, type) {
      // Some exports nest everything in one top folder; the JSON names paths from inside it.
      const entry =
        entries.get(path) ?? [...entries.entries()].find(([p]) => p.endsWith(`/${path}`))?.[1];
      if (!entry || entry.directory) throw new Error(`The export has no ${path}`);
      return entry.getData(new BlobWriter(type));
    },
    async close() {
      await Promise.all(readers.map((r) => r.close().catch(() => {})));
    },
  };
}
