import {
  commentSettingBody,
  commentSettingParams,
  commentSettingResponse,
  commentSettingsResponse,
  postCommentsParams,
  postCommentsResponse,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import type { CommentsService } from "./comments.service.ts";

const tags = ["comments"];

/** What these routes use of the application. */
export interface CommentsRouteDeps {
  comments: CommentsService;
  guards: AuthGuards;
}

export function registerCommentsRoutes(app: FastifyInstance, ctx: CommentsRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { comments, guards } = ctx;
  const onRequest = guards.requireUser;

  r.get(
    "/api/comments/settings",
    { onRequest, schema: { tags, response: { 200: commentSettingsResponse } } },
    async (req) => ({ accounts: await comments.settings(principalOf(req).user.id) }),
  );

  r.put(
    "/api/comments/settings/:accountId",
    {
      onRequest,
      schema: {
        tags,
        params: commentSettingParams,
        body: commentSettingBody,
        response: { 200: commentSettingResponse },
      },
    },
    async (req) =>
      comments.setEnabled(principalOf(req).user.id, req.params.accountId, req.body.enabled),
  );

  r.get(
    "/api/comments/posts/:postId",
    {
      onRequest,
      schema: { tags, params: postCommentsParams, response: { 200: postCommentsResponse } },
    },
    async (req) => comments.postComments(principalOf(req).user.id, req.params.postId),
  );
}
