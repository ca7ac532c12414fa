# syntax=docker/dockerfile:1
# scim-bridge: one image for every role (`server`, `worker`, `all`) and for the platform simulator.
#   docker build -t scim-bridge .
#   docker run --rm -p 8080:8080 -e REDIS_URL=redis://redis:6379 -v "$PWD/config:/app/config:ro" scim-bridge server
# See docker-compose.yml for Redis, a scalable worker service and the simulator (`--profile demo`).

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: all dependencies, compile TypeScript to dist/ -------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# package.json's `allowScripts` denies the install scripts of all four packages that have one (@swc/core,
# esbuild, @parcel/watcher, msgpackr-extract); the npm in this image does not read `allowScripts`, so
# --ignore-scripts gives the same install. The lockfile holds every platform's optional binaries.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# `npm run build` also copies src/store/commands/*.lua to dist/store/commands (loaded at run time);
# src/simulator is compiled too (dist/simulator/main.js), so the simulator needs no tsx in the image.
RUN npm run build

# ---- prod-deps: production dependencies only -----------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# ---- runtime ---------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# PORT is not set here: it would override `server.port` of a mounted config. The health check reads
# PORT too (default 8080), so set PORT, not server.port, to move the listener.
ENV NODE_ENV=production
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# config/default.json and the examples; mount your own directory over /app/config (read-only is fine)
COPY config ./config
COPY docker/healthcheck.cjs ./docker/healthcheck.cjs
# the image's `node` user (uid 1000): nothing in /app is writable by it, and nothing needs to be
USER node
EXPOSE 8080
# GET /healthz on PORT for the server and all roles; the worker role has no listener and is healthy while it runs
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["node", "docker/healthcheck.cjs"]
# --max-semi-space-size=4: V8's young generation grows to 3 x 16 MiB under allocation-heavy load by
# default; capped at 4 MiB semi-spaces the server's peak RSS at 50 connections fell from ~169 to ~142 MiB
# (issue 11 item 7; bench/scim starts the server the same way)
ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/main.js"]
CMD ["all"]
