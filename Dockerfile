# Image for the api and worker services of docker-compose.yml (same image, different command): built
# once here, so a container starts plain compiled JavaScript. The runtime stage carries production
# dependencies only (no Prisma CLI, tsx or TypeScript) and runs as the unprivileged `node` user.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY . .
# --omit=dev alone would keep the Prisma CLI and TypeScript: they are optional peers of @prisma/client.
# The only optional production package is msgpackr's native accelerator, which BullMQ does without.
RUN npm run build && npm prune --omit=dev --omit=optional --no-audit --no-fund

FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
# Owned by root and read-only to the service: a compromised process cannot rewrite its own code.
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
EXPOSE 8000 8001
# The admin CLI runs compiled too: `docker compose exec api node dist/scripts/admin.js help`.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "dist/scripts/healthcheck.js", "8000", "/healthz"]
CMD ["node", "dist/api/main.js"]
