import { defineConfig } from 'vitest/config';

// GPU tests: run on the GPU machine with `npm run test:gpu`.
export default defineConfig({
  test: { include: ['test/gpu/**/*.test.ts'], testTimeout: 300_000, pool: 'forks' },
});
