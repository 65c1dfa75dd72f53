import type { DriveFile } from "./state.ts";

/** Parser for the subset of the Drive `q` language Keepsake uses (see PROVIDERS.md). */
export class QueryError extends Error {}

type Token = { t: "str"; v: string } | { t: "word"; v: string } | { t: "op"; v: string };

function tokenize(q: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < q.length) {
    const c = q[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      let v = "";
      i++;
      while (i < q.length && q[i] !== "'") {
        if (q[i] === "\\" && i + 1 < q.length) i++;
        v += q[i];
        i++;
      }
      if (q[i] !== "'") throw new QueryError("unterminated string");
      i++;
      out.push({ t: "str", v });
    } else if ("(){}".includes(c)) {
      out.push({ t: "op", v: c });
      i++;
    } else if (c === "!" && q[i + 1] === "=") {
      out.push({ t: "op", v: "!=" });
      i += 2;
    } else if ((c === "<" || c === ">") && q[i + 1] === "=") {
      out.push({ t: "op", v: `${c}=` });
      i += 2;
    } else if ("=<>".includes(c)) {
      out.push({ t: "op", v: c });
      i++;
    } else {
      const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(q.slice(i));
      if (!m) throw new QueryError(`unexpected ${c}`);
      out.push({ t: "word", v: m[0] });
      i += m[0].length;
    }
  }
  return out;
}

type Pred = (f: DriveFile) => boolean;

export function parseQuery(q: string, rootId: string): Pred {
  const tokens = tokenize(q);
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => {
    const t = tokens[pos++];
    if (!t) throw new QueryError("unexpected end");
    return t;
  };
  const expectOp = (v: string) => {
    const t = next();
    if (t.t !== "op" || t.v !== v) throw new QueryError(`expected ${v}`);
  };
  const word = (t: Token | undefined, v: string) => t?.t === "word" && t.v.toLowerCase() === v;
  const str = (): string => {
    const t = next();
    if (t.t !== "str") throw new QueryError("expected string");
    return t.v;
  };

  const compare = (a: string | number, op: string, b: string | number): boolean => {
    switch (op) {
      case "=":
        return a === b;
      case "!=":
        return a !== b;
      case "<":
        return a < b;
      case ">":
        return a > b;
      case "<=":
        return a <= b;
      case ">=":
        return a >= b;
    }
    throw new QueryError(`bad operator ${op}`);
  };

  const term = (): Pred => {
    const t = peek();
    if (t?.t === "op" && t.v === "(") {
      next();
      const inner = orExpr();
      expectOp(")");
      return inner;
    }
    if (word(t, "not")) {
      next();
      const inner = term();
      return (f) => !inner(f);
    }
    if (t?.t === "str") {
      const value = next().v;
      if (!word(next(), "in")) throw new QueryError("expected in");
      const field = next();
      if (!word(field, "parents")) throw new QueryError("only parents supports in");
      const id = value === "root" ? rootId : value;
      return (f) => f.parents.includes(id);
    }
    const field = next();
    if (field.t !== "word") throw new QueryError("expected field");
    const name = field.v;
    if (name === "appProperties" || name === "properties") {
      if (!word(next(), "has")) throw new QueryError("expected has");
      expectOp("{");
      if (!word(next(), "key")) throw new QueryError("expected key");
      expectOp("=");
      const key = str();
      if (!word(next(), "and")) throw new QueryError("expected and");
      if (!word(next(), "value")) throw new QueryError("expected value");
      expectOp("=");
      const value = str();
      expectOp("}");
      return (f) => f[name][key] === value;
    }
    const opTok = next();
    const op = opTok.t === "op" ? opTok.v : opTok.t === "word" ? opTok.v.toLowerCase() : "";
    if (name === "trashed" || name === "starred") {
      const v = next();
      if (v.t !== "word" || !["true", "false"].includes(v.v))
        throw new QueryError("expected boolean");
      const want = v.v === "true";
      if (op !== "=" && op !== "!=") throw new QueryError("bad operator");
      return (f) => compare(name === "trashed" ? String(f.trashed) : "false", op, String(want));
    }
    const value = str();
    if (name === "name") {
      if (op === "contains") return (f) => f.name.toLowerCase().includes(value.toLowerCase());
      if (op !== "=" && op !== "!=") throw new QueryError("bad operator");
      return (f) => compare(f.name, op, value);
    }
    if (name === "mimeType") {
      if (op === "contains") return (f) => f.mimeType.includes(value);
      return (f) => compare(f.mimeType, op, value);
    }
    if (name === "fullText" && op === "contains") {
      const v = value.toLowerCase();
      return (f) =>
        f.name.toLowerCase().includes(v) || (f.description ?? "").toLowerCase().includes(v);
    }
    if (name === "modifiedTime" || name === "createdTime") {
      const when = Date.parse(value);
      if (Number.isNaN(when)) throw new QueryError("bad date");
      return (f) => compare(f[name], op, when);
    }
    throw new QueryError(`unsupported field ${name}`);
  };

  const andExpr = (): Pred => {
    const parts = [term()];
    while (word(peek(), "and")) {
      next();
      parts.push(term());
    }
    return (f) => parts.every((p) => p(f));
  };
  const orExpr = (): Pred => {
    const parts = [andExpr()];
    while (word(peek(), "or")) {
      next();
      parts.push(andExpr());
    }
    return (f) => parts.some((p) => p(f));
  };
  const pred = orExpr();
  if (pos !== tokens.length) throw new QueryError("trailing input");
  return pred;
}
