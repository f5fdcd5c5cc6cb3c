# Image for docker-compose.yml: builds the TypeScript sources and runs the API.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
# npm ci's prepare script generates the peggy parsers (not committed): it needs the grammars.
COPY scripts/build-grammars.ts scripts/
COPY shared/query/cql2/cql2-text.peggy shared/query/cql2/
COPY shared/query/cql-text/cql-text.peggy shared/query/cql-text/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 8000
CMD ["node", "--max-semi-space-size=32", "dist/services/api/main.js"]
