import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Ctx } from "../../context.ts";
import { page } from "../../pages.ts";
import { escapeHtml as h } from "../../util.ts";
import { CONTROL as c, handle } from "../control/handle.ts";
import { buckets, usedBytes } from "./store.ts";

/** Calls whose answer is lost, by endpoint: each is handled in full, then its connection drops. */
const lostAnswers = new WeakMap<Ctx, { endpoint: string; remaining: number }[]>();

/** Whether this call's answer is to be lost (using up one of the rule's uses). */
export function takeLostAnswer(ctx: Ctx, endpoint: string): boolean {
  const rules = lostAnswers.get(ctx) ?? [];
  const rule = rules.find((r) => r.endpoint === endpoint);
  if (!rule) return false;
  if (--rule.remaining <= 0) rules.splice(rules.indexOf(rule), 1);
  return true;
}

/** The S3 store's control calls (listings, buckets, quota, flavour, cuts, corruption, lost answers) and `/s3-browser`. */
export function registerS3Control(app: FastifyInstance, ctx: Ctx): void {
  ctx.resetHooks.push(() => {
    lostAnswers.delete(ctx);
  });
  app.get(`${c}/s3/objects`, async (req) => {
    const bucket = (req.query as { bucket?: string }).bucket;
    return {
      objects: Object.values(buckets(ctx))
        .filter((b) => !bucket || b.name === bucket)
        .flatMap((b) =>
          Object.values(b.objects).map((o) => ({
            bucket: b.name,
            key: o.key,
            size: o.size,
            etag: o.etag,
            content_type: o.contentType,
            metadata: o.metadata,
            checksums: o.checksums,
            last_modified: new Date(o.lastModified).toISOString(),
          })),
        ),
      uploads: Object.values(buckets(ctx)).flatMap((b) =>
        Object.values(b.uploads).map((u) => ({
          bucket: b.name,
          key: u.key,
          upload_id: u.id,
          parts: Object.values(u.parts).map((p) => ({ number: p.number, size: p.size })),
        })),
      ),
    };
  });
  app.post(
    `${c}/s3/buckets`,
    handle(z.object({ name: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/) }), (b) => {
      const all = buckets(ctx);
      all[b.name] ??= { name: b.name, created: ctx.now(), objects: {}, uploads: {} };
      ctx.changed();
      return { bucket: b.name };
    }),
  );
  app.post(
    `${c}/s3/quota`,
    handle(
      z.object({ bucket: z.string(), bytes: z.number().int().min(0).nullable() }),
      (b, reply) => {
        const bucket = buckets(ctx)[b.bucket];
        if (!bucket) return reply.code(404).send({ error: `no bucket ${b.bucket}` });
        if (b.bytes === null) delete bucket.quotaBytes;
        else bucket.quotaBytes = b.bytes;
        ctx.changed();
        return { bucket: b.bucket, quota_bytes: b.bytes, used_bytes: usedBytes(bucket) };
      },
    ),
  );
  app.post(
    `${c}/s3/flavor`,
    handle(z.object({ flavor: z.enum(["aws", "r2"]) }), (b) => {
      ctx.s3Flavor = b.flavor;
      return { flavor: ctx.s3Flavor };
    }),
  );
  app.post(
    `${c}/s3/cut`,
    handle(
      z.object({ after_bytes: z.number().int().min(0), count: z.number().int().min(1).default(1) }),
      (b) => {
        ctx.s3Cuts.push({ afterBytes: b.after_bytes, remaining: b.count });
        return { cuts: ctx.s3Cuts };
      },
    ),
  );
  app.post(
    `${c}/s3/lose-answer`,
    handle(
      z.object({
        endpoint: z.string().regex(/^s3\.[a-z.-]+$/),
        count: z.number().int().min(1).default(1),
      }),
      (b) => {
        const rules = lostAnswers.get(ctx) ?? [];
        lostAnswers.set(ctx, rules);
        rules.push({ endpoint: b.endpoint, remaining: b.count });
        return { lost_answers: rules };
      },
    ),
  );
  app.post(
    `${c}/s3/corrupt`,
    handle(z.object({ count: z.number().int().min(1).default(1) }), (b) => {
      ctx.s3CorruptWrites += b.count;
      return { corrupt_writes: ctx.s3CorruptWrites };
    }),
  );

  app.get("/s3-browser", async (_req, reply) => {
    const rows = Object.values(buckets(ctx)).map((b) => {
      const objects = Object.values(b.objects).sort((x, y) => (x.key < y.key ? -1 : 1));
      const list = objects
        .map(
          (o) =>
            `<tr><td>${h(o.key)}</td><td>${o.size.toLocaleString("en-US")}</td><td>${h(new Date(o.lastModified).toISOString())}</td><td>${h(
              Object.entries(o.metadata)
                .map(([k, v]) => `${k}=${v}`)
                .join(", "),
            )}</td></tr>`,
        )
        .join("");
      const quota =
        b.quotaBytes === undefined
          ? "no quota"
          : `quota ${b.quotaBytes.toLocaleString("en-US")} bytes`;
      return `<h2>${h(b.name)}</h2><p>${objects.length} objects, ${usedBytes(b).toLocaleString("en-US")} bytes, ${quota}, ${Object.keys(b.uploads).length} multipart uploads open</p><table><thead><tr><th>Key</th><th>Size</th><th>Last modified</th><th>Metadata</th></tr></thead><tbody>${list}</tbody></table>`;
    });
    return reply
      .type("text/html")
      .send(
        page(
          "S3 buckets",
          "body{font-family:system-ui,sans-serif;max-width:1000px;margin:40px auto;padding:0 16px;color:#222}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;font-size:14px;word-break:break-all}",
          `<h1>S3 buckets</h1>${rows.join("")}`,
        ),
      );
  });
}
