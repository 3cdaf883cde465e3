import { defineConfig } from 'vitest/config';

// Unit and integration tests run in Node; e2e tests drive Debian's Chromium against `serve`;
// GPU tests (test/gpu) need the GPU machine and run through vitest.gpu.config.ts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/gpu/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll's own default (1 s) is shorter than a UI update takes on CI's two cores while
    // workers saturate them (a queued run's socket event came after 1 s there): waits on the app
    // get 10 s unless a test says otherwise.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    reporters: ['default'],
  },
});
