# Image for the api and worker services of docker-compose.yml (same image, different command).
FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY . .
EXPOSE 8000
CMD ["npm", "run", "start:api"]
