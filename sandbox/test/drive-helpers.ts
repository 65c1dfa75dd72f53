import { createHash } from "node:crypto";
import { type drive_v3, drive as driveApi } from "@googleapis/drive";
import { OAuth2Client } from "google-auth-library";
import { expect } from "vitest";
import { SANDBOX_CREDENTIALS as C, DEMO_GOOGLE } from "../src/index.ts";
import { googleTokens, type Harness } from "./helpers.ts";

/** What the Drive suites share (drive.test.ts, drive-resumable.test.ts). */

/** Fields of a Drive file resource these tests read. */
export interface DriveFile {
  id: string;
  name: string;
  size: string;
  md5Checksum: string;
}

/** A row of the control API's `drive/files` listing. */
export interface ControlDriveFile {
  id: string;
  ownerEmail: string;
  folder: string;
  name: string;
  size: number;
  md5Checksum: string;
  description?: string;
}

export const J = DEMO_GOOGLE.jordan;
export const FOLDER = "application/vnd.google-apps.folder";
export const KiB = 1024;
export const md5 = (b: Buffer) => createHash("md5").update(b).digest("hex");
export const bytes = (n: number, seed = 7) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
};

/** Drive calls through the harness `h` of the test file. */
export function driveHelpers(h: Harness) {
  const at = () => ({ rootUrl: `${h.url}/www.googleapis.com/` });

  /**
   * Note: googleapis-common's *global* `rootUrl` keeps only the origin of the URL (the host prefix is lost)
   * and does not rewrite upload URLs, so the root URL is passed per request, as Keepsake must do too.
   */
  async function officialDrive(sub: string = J.sub): Promise<drive_v3.Drive> {
    const t = await googleTokens(h, sub);
    const auth = new OAuth2Client({
      clientId: C.google.clientId,
      clientSecret: C.google.clientSecret,
      endpoints: { oauth2TokenUrl: `${h.url}/oauth2.googleapis.com/token` },
    });
    auth.setCredentials({ refresh_token: t.refresh_token });
    return driveApi({ version: "v3", auth });
  }

  async function token(sub: string = J.sub, drive = true): Promise<string> {
    return (await googleTokens(h, sub, drive)).access_token;
  }

  async function startResumable(
    tok: string,
    total?: number,
    meta: Record<string, unknown> = { name: "clip.mp4" },
  ): Promise<string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${tok}`,
      "content-type": "application/json; charset=UTF-8",
      "x-upload-content-type": "video/mp4",
    };
    if (total !== undefined) headers["x-upload-content-length"] = String(total);
    const res = await fetch(
      `${h.url}/www.googleapis.com/upload/drive/v3/files?uploadType=resumable&fields=id,name,size,md5Checksum`,
      { method: "POST", headers, body: JSON.stringify(meta) },
    );
    expect(res.status).toBe(200);
    return res.headers.get("location")!;
  }

  function put(session: string, body: Buffer, range: string): Promise<Response> {
    return fetch(session, { method: "PUT", headers: { "content-range": range }, body });
  }

  return { at, officialDrive, token, startResumable, put };
}
