/**
 * The tables the import area owns: the items of an Instagram data export and their files in
 * Drive. Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = ["import_items", "import_files"] as const;
