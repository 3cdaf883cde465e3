import { defineConfig } from 'vitest/config';

// Unit and integration tests run in Node; e2e tests drive Debian's Chromium against `serve`;
// GPU tests (test/gpu) need the GPU machine and run through vitest.gpu.config.ts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/gpu/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
