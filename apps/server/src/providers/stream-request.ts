import { once } from "node:events";
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * One HTTP request whose body is written piece by piece as it is produced, answered as a fetch
 * Response. `fetch()` with a streamed request body holds the whole body in memory before it
 * sends it; this holds one piece at a time (and waits for the socket to drain). A failure of
 * the body's source rejects with that failure, not as a network error.
 */
export function streamRequest(
  url: URL,
  init: {
    method: string;
    headers: Record<string, string>;
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
    timeoutMs: number;
  },
): Promise<Response> {
  const mod = url.protocol === "https:" ? https : http;
  const agent = agents[url.protocol as keyof typeof agents];
  return new Promise<Response>((resolve, reject) => {
    let sourceError: unknown = null;
    const req = mod.request(
      url,
      { method: init.method, headers: init.headers, agent, timeout: init.timeoutMs },
      (res) => {
        const headers = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
        }
        const status = res.statusCode ?? 500;
        if (NULL_BODY.has(status)) res.resume();
        const body = NULL_BODY.has(status)
          ? null
          : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, headers }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("TimeoutError")));
    req.on("error", (err) => reject(sourceError ?? err));
    (async () => {
      for await (const piece of init.body) {
        if (req.destroyed) return;
        if (!req.write(piece)) await once(req, "drain");
      }
      req.end();
    })().catch((err) => {
      sourceError = err;
      req.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  });
}
