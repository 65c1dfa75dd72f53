/**
 * The tables the import area owns: each item of an imported Instagram export and each of its
 * media files, with their Drive ids and resumable sessions.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = ["import_items", "import_files"] as const;
