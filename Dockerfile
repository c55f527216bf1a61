# Build: install everything, compile TypeScript and build the console (npm ci runs `prepare`), drop dev dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc tsconfig.json tsconfig.build.json vite.config.ts ./
COPY src ./src
COPY console ./console
COPY scripts ./scripts
COPY migrations ./migrations
RUN npm ci && npm prune --omit=dev

# Run: the compiled service, its production dependencies, the migrations, and git (repository targets).
FROM node:20-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/migrations ./migrations
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=6 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["node", "dist/src/cli.js"]
CMD ["api"]
