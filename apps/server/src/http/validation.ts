import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { AppError } from "../lib/errors.ts";

/**
 * What the API says about a request it cannot take, in one place:
 * - zod's own texts ("Too big: expected number to be <=200") become sentences that name the
 *   field and what it allows ("limit must be at most 200"); a contract's own message (the
 *   SPEC §5 copy) still wins;
 * - a NUL character (U+0000) or a lone surrogate (half of a UTF-16 pair, which no UTF-8 text can
 *   hold: `"\ud800"` in JSON) anywhere in a request's text, keys included, is refused with 422
 *   naming the field before any route sees it (PostgreSQL cannot store either; a mail cannot
 *   carry the second);
 * - URLs the router cannot read answer `{detail}` like every other error.
 */

type Issue = z.core.$ZodRawIssue;

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  bigint: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  date: "a date",
  null: "null",
};

const FORMAT_WORDS: Record<string, string> = {
  uuid: "a UUID",
  guid: "a UUID",
  email: "an e-mail address",
  url: "a URL",
  datetime: "an ISO 8601 date and time",
  date: "a date (YYYY-MM-DD)",
  time: "a time (HH:MM:SS)",
};

const list = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(", ");

/** The field an issue is about, as a client names it: `limit`, `items.0.name`. */
export function fieldLabel(path: readonly PropertyKey[] | undefined): string {
  return path && path.length > 0 ? path.map(String).join(".") : "The request";
}

function unit(origin: string, n: number | bigint): string {
  if (origin === "string") return n === 1 ? " character" : " characters";
  if (origin === "array" || origin === "set") return n === 1 ? " item" : " items";
  return "";
}

/** zod's issue as a sentence naming the field and what it allows. */
export function issueMessage(iss: Issue): string {
  const field = fieldLabel(iss.path);
  switch (iss.code) {
    case "invalid_type": {
      if (iss.input === undefined) return `${field} is required`;
      return `${field} must be ${TYPE_WORDS[iss.expected] ?? iss.expected}`;
    }
    case "too_big": {
      const max = iss.maximum;
      if (iss.origin === "date") return `${field} must be on or before ${String(max)}`;
      if (iss.exact) return `${field} must be exactly ${String(max)}${unit(iss.origin, max)}`;
      return iss.inclusive === false
        ? `${field} must be less than ${String(max)}${unit(iss.origin, max)}`
        : `${field} must be at most ${String(max)}${unit(iss.origin, max)}`;
    }
    case "too_small": {
      const min = iss.minimum;
      if (iss.origin === "date") return `${field} must be on or after ${String(min)}`;
      if (iss.origin === "string" && Number(min) === 1 && iss.inclusive !== false)
        return `${field} must not be empty`;
      if (iss.exact) return `${field} must be exactly ${String(min)}${unit(iss.origin, min)}`;
      return iss.inclusive === false
        ? `${field} must be more than ${String(min)}${unit(iss.origin, min)}`
        : `${field} must be at least ${String(min)}${unit(iss.origin, min)}`;
    }
    case "invalid_format": {
      if (iss.format === "starts_with" && "prefix" in iss)
        return `${field} must start with ${JSON.stringify(iss.prefix)}`;
      const words = FORMAT_WORDS[iss.format];
      return words ? `${field} must be ${words}` : `${field} is not in the expected format`;
    }
    case "not_multiple_of":
      return `${field} must be a multiple of ${iss.divisor}`;
    case "unrecognized_keys":
      return `${field === "The request" ? "The request has" : `${field} has`} unknown field(s): ${iss.keys.join(", ")}`;
    case "invalid_value":
      return iss.values.length === 1
        ? `${field} must be ${list(iss.values)}`
        : `${field} must be one of: ${list(iss.values)}`;
    case "invalid_key":
      return `${field} has an invalid key`;
    default:
      return `${field} is not valid`;
  }
}

// Applies to every schema of this process; a schema's own message still comes first.
z.config({ customError: issueMessage });

interface Visit {
  value: unknown;
  key: PropertyKey | null;
  parent: Visit | null;
}

const pathOf = (at: Visit | null): PropertyKey[] => {
  const path: PropertyKey[] = [];
  for (let n = at; n && n.key !== null; n = n.parent) path.unshift(n.key);
  return path;
};

/** What makes text unfit to keep: a NUL character, or a lone surrogate (not encodable as UTF-8). */
type Unfit = "nul" | "surrogate";

function unfit(text: string): Unfit | null {
  if (text.includes("\u0000")) return "nul";
  return text.isWellFormed() ? null : "surrogate";
}

/**
 * The first text in a parsed request part that cannot be kept (a NUL character or a lone
 * surrogate), as the path of the field that holds it and what is wrong with it. Walks without
 * recursion (a body of deeply nested arrays must not overflow the stack), and builds a path only
 * for the field it reports.
 */
export function findUnfitText(value: unknown): { path: PropertyKey[]; why: Unfit } | null {
  const stack: Visit[] = [{ value, key: null, parent: null }];
  for (let at = stack.pop(); at; at = stack.pop()) {
    const v = at.value;
    if (typeof v === "string") {
      const why = unfit(v);
      if (why) return { path: pathOf(at), why };
      continue;
    }
    if (v === null || typeof v !== "object" || Buffer.isBuffer(v)) continue;
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [string, unknown];
      const why = unfit(key);
      if (why) return { path: [...pathOf(at), key], why };
      stack.push({ value: child, key, parent: at });
    }
  }
  return null;
}

const UNFIT_WORDS: Record<Unfit, string> = {
  nul: "must not contain the NUL character (U+0000)",
  surrogate: "must not contain a lone surrogate character (it cannot be encoded as UTF-8)",
};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The first query parameter whose percent-encoded bytes are not UTF-8 (`%ED%A0%80`, a lone
 * surrogate's bytes; `%E2%82`, a character cut short). The query parser keeps such a value as
 * its literal text; it is refused instead, as in a path. A `%` not followed by two hex digits is
 * a literal percent sign.
 */
export function findNonUtf8Query(url: string): string | null {
  const q = url.indexOf("?");
  if (q < 0) return null;
  for (const pair of url.slice(q + 1).split("&")) {
    if (!/%[0-9a-f]{2}/i.test(pair)) continue;
    const bytes: number[] = [];
    for (let i = 0; i < pair.length; i++) {
      const hex = pair[i] === "%" ? pair.slice(i + 1, i + 3) : "";
      if (/^[0-9a-f]{2}$/i.test(hex)) {
        bytes.push(Number.parseInt(hex, 16));
        i += 2;
      } else bytes.push(...Buffer.from(pair[i] as string));
    }
    try {
      strictUtf8.decode(Uint8Array.from(bytes));
    } catch {
      const eq = pair.indexOf("=");
      const key = eq < 0 ? pair : pair.slice(0, eq);
      return /%[0-9a-f]{2}/i.test(key) ? "A query parameter's name" : key;
    }
  }
  return null;
}

/** Refuses, with 422, any request whose path, query or body holds text that cannot be kept. */
/** Throws the 422 a NUL or lone surrogate anywhere in `part` gets (a hook that runs early uses it too). */
export function assertFitText(part: unknown): void {
  const found = findUnfitText(part);
  if (found) {
    // A lone surrogate key is named by its code points, which a JSON answer can carry.
    const label = fieldLabel(found.path.map((k) => (typeof k === "string" ? k.toWellFormed() : k)));
    throw new AppError("invalid", `${label} ${UNFIT_WORDS[found.why]}`);
  }
}

export function rejectUnfitText(app: FastifyInstance) {
  app.addHook("preValidation", async (req: FastifyRequest) => {
    // API requests only: a page's URL (an old link in Latin-1, say) still gets its page.
    const query = req.url.startsWith("/api/") ? findNonUtf8Query(req.url) : null;
    if (query) {
      throw new AppError("invalid", `${query} must be UTF-8 text (its percent-encoding is not)`);
    }
    for (const part of [req.params, req.query, req.body]) assertFitText(part);
  });
}

/** Fastify's `frameworkErrors`: URLs the router cannot read, in the API's `{detail}` shape. */
export function frameworkErrors(maxParamLength: number) {
  return (error: { code?: string }, _req: FastifyRequest, reply: FastifyReply) => {
    if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
      return reply
        .code(414)
        .send({ detail: `A path segment is too long (at most ${maxParamLength} characters)` });
    }
    if (error.code === "FST_ERR_BAD_URL") {
      return reply.code(400).send({ detail: "The URL is malformed (invalid percent-encoding)" });
    }
    return reply.code(500).send({ detail: "Internal server error" });
  };
}
