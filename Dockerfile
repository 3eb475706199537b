# syntax=docker/dockerfile:1
# Fieldmap's image: the web server (default command) and, with `npm run worker`, a BullMQ worker
# (docker-compose.yml runs both). Debian packages come from deploy/debian-packages.txt's [run] section,
# the same list `make run` installs. docs/deployment-docker.md says how it is run.
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Dependencies exactly as locked. Not `npm ci`: the lock lacks other platforms' optional binaries
#    (see the Makefile's install target), and `install --no-save` installs the locked versions anyway.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1 NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json ./
RUN npm install --no-save --loglevel=error

# 2. Prisma clients and the Next.js build.
FROM deps AS build
COPY . .
RUN npm run -s db:generate && npm run -s build

# 3. What runs: Node, the run-time Debian packages, the built app, as the image's unprivileged `node` user.
FROM ${NODE_IMAGE} AS runtime
COPY deploy/debian-packages.txt deploy/debian-packages.sh /tmp/deploy/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(sh /tmp/deploy/debian-packages.sh run) \
 && rm -rf /var/lib/apt/lists/* /tmp/deploy
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 NPM_CONFIG_UPDATE_NOTIFIER=false DATA_DIR=/data PORT=3000
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# Healthy while /api/health answers 200 (database and queue answer); a worker has no HTTP, so
# docker-compose.yml turns this off for it.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "tsx", "lib/server/serve.ts", "start", "-p", "3000", "--keepAliveTimeout", "65000"]
