import type { ColumnType } from "kysely";

/** Timestamps come back as Date and may be written as Date or ISO text. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp with a database default. */
export type GeneratedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A nullable timestamp a migration added with no default: optional on insert. */
export type OptionalTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
/** jsonb: written as JSON text, read as the parsed value. */
export type Json<T> = ColumnType<T, string | undefined, string>;
