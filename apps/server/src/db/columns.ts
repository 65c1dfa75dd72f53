import type { ColumnType } from "kysely";

/** Timestamps come back as Date and may be written as Date or ISO text. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp with a database default. */
export type GeneratedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
