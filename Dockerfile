# Keepsake: one image for every role, chosen by its command (api, worker, migrate).
#
#   docker build -t keepsake .
#   docker run --env-file keepsake.env keepsake                  # api (the default command)
#   docker run --env-file keepsake.env -e MALLOC_ARENA_MAX=1 keepsake node --max-semi-space-size=1 --max-opt=2 apps/server/dist/main.js worker
#
# Docker is not available on our machines: scripts/production-smoke.ts (a stage of `npm test`)
# performs these same build steps and runs these same commands without Docker, and checks that
# this file still says them. Change them there and here together.

# ---- build: every dependency, the web app and the server built ----------------------------
FROM node:24-bookworm-slim AS build
WORKDIR /app
# The build context is the repository without what .dockerignore leaves out (node_modules,
# builds, data): the smoke test copies the files git tracks, the same set.
COPY . .
RUN npm ci --no-audit --no-fund --prefer-offline \
 && npm run build \
 && npm run build:server \
 && npm prune --omit=dev --no-audit --no-fund

# ---- run: Node 24 slim, production dependencies only, not root -----------------------------
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/tmp/keepsake
WORKDIR /app
# Owned by root and read-only to the process; it writes nothing but DATA_DIR.
COPY --from=build /app /app
USER node
EXPOSE 8080
# Node itself gets SIGTERM (graceful shutdown: docs/operations.md, Shutting down): no npm, no shell in
# between. The API answers GET /api/health/live and /api/health/ready; compose.yaml checks them.
CMD ["node", "--max-semi-space-size=4", "apps/server/dist/main.js", "api"]
