import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // In the repository the CLI uses the SDK's source, as the root build does (tsconfig paths).
  resolve: {
    alias: {
      "@kinora/client": fileURLToPath(new URL("packages/client/src/index.ts", import.meta.url)),
    },
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "packages/*/src/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: files run in parallel forks, but not so many that PGlite instances exhaust memory.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
