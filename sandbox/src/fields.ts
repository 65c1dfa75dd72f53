/** Field selection trees for Graph (`a,b{c,d}`) and Google (`a,b(c,d)`, `a/b`) syntaxes. */
export type FieldTree = Map<string, FieldTree | null>;

export class FieldSyntaxError extends Error {}

export function parseFields(text: string, open: "{" | "(", close: "}" | ")"): FieldTree {
  let pos = 0;
  const parseList = (): FieldTree => {
    const tree: FieldTree = new Map();
    while (pos < text.length) {
      const start = pos;
      while (pos < text.length && !",{}()".includes(text[pos]!)) pos++;
      const name = text.slice(start, pos).trim();
      let sub: FieldTree | null = null;
      if (text[pos] === open) {
        pos++;
        sub = parseList();
        if (text[pos] !== close) throw new FieldSyntaxError(`Unbalanced ${open} in fields`);
        pos++;
      }
      if (name) {
        // Google's a/b path form.
        const path = open === "(" ? name.split("/") : [name];
        let node = tree;
        for (let i = 0; i < path.length; i++) {
          const key = path[i]!;
          if (i === path.length - 1) {
            const existing = node.get(key);
            node.set(key, sub ?? (existing === undefined ? null : existing));
          } else {
            let next = node.get(key);
            if (!next) {
              next = new Map();
              node.set(key, next);
            }
            node = next;
          }
        }
      } else if (sub) {
        throw new FieldSyntaxError("Missing field name");
      }
      if (text[pos] === ",") {
        pos++;
        continue;
      }
      if (text[pos] === close) return tree;
      if (pos < text.length) throw new FieldSyntaxError(`Unexpected ${text[pos]} in fields`);
    }
    return tree;
  };
  const tree = parseList();
  if (pos < text.length) throw new FieldSyntaxError("Unbalanced fields");
  return tree;
}

/** Applies a Google-style selection to a JSON value. `*` selects everything at that level. */
export function selectFields(value: unknown, tree: FieldTree | null): unknown {
  if (tree === null || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => selectFields(v, tree));
  if (tree.has("*")) return value;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = selectFields(v, sub);
  }
  return out;
}
