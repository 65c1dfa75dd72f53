import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { sendDriveError } from "../../errors.ts";
import { query } from "../../util.ts";
import { DRIVE_FILE_SCOPE, googleAccess } from "../google/index.ts";
import { type Auth, DriveError } from "./resource.ts";

export const API = "/www.googleapis.com/drive/v3";
export const UPLOAD_PATH = "/www.googleapis.com/upload/drive/v3/files";

export type DriveHandler = (
  req: FastifyRequest,
  reply: FastifyReply,
  auth: Auth,
) => Promise<unknown>;
export type Wrap = (
  endpoint: string,
  fn: DriveHandler,
) => (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** Wraps a Drive handler: counts the call (and its faults), checks the token and scope, and answers a DriveError in Drive's error body. */
export function driveWrap(ctx: Ctx): Wrap {
  const authorize = (req: FastifyRequest): Auth => {
    if (!req.headers.authorization && !query(req).access_token) {
      throw new DriveError(
        401,
        "required",
        "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
        {
          locationType: "header",
          location: "Authorization",
        },
      );
    }
    const access = googleAccess(ctx, req);
    if (!access.ok)
      throw new DriveError(401, "authError", "Invalid Credentials", {
        locationType: "header",
        location: "Authorization",
      });
    if (
      !access.token.scopes.includes(DRIVE_FILE_SCOPE) &&
      !access.token.scopes.includes("https://www.googleapis.com/auth/drive")
    ) {
      throw new DriveError(
        403,
        "insufficientPermissions",
        "Request had insufficient authentication scopes.",
      );
    }
    return { user: access.user, token: access.token };
  };

  const wrap =
    (
      endpoint: string,
      fn: (req: FastifyRequest, reply: FastifyReply, auth: Auth) => Promise<unknown>,
    ) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      if (!(await ctx.enter(req, reply, endpoint))) return reply;
      try {
        const auth = authorize(req);
        return await fn(req, reply, auth);
      } catch (e) {
        if (e instanceof DriveError) {
          if (reply.sent) return reply;
          return sendDriveError(reply, e.status, e.reason, e.message, e.extra);
        }
        throw e;
      }
    };
  return wrap;
}
