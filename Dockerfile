# syntax=docker/dockerfile:1
# Build: the single binary, with Bun coming from npm like everywhere else in this project.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
# Only the runtime dependencies: `npm run build` needs Bun (itself one of them) and the packages the
# binary bundles, nothing from devDependencies (the test and inspection tools).
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
RUN npm run build

# Run: the binary alone, as an unprivileged user, embedded database in the /data volume
# (set DATABASE_URL and SECRET_KEY to use PostgreSQL instead).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin svc \
 && mkdir -p /data && chown svc:svc /data && chmod 0700 /data
COPY --from=build /src/dist/svc-agents /usr/local/bin/svc-agents
USER svc
WORKDIR /data
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/svc-agents", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/svc-agents"]
CMD ["serve"]
