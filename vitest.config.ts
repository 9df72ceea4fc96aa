import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Vitest runs every project's files in one pool of workers sized here (a project's own
    // maxWorkers is not read); its default is one fewer than the cores, one on this 2-core machine.
    // A test file spends about half its time waiting (child processes, sockets, timers, the
    // database), so four files at once finish the API suites in about 60% of the time of one.
    // The browser journeys ask for two (`--maxWorkers=2`): each runs a portal and a Chromium.
    maxWorkers: 4,
    minWorkers: 1,
    projects: [
      {
        test: {
          name: 'shared',
          root: './packages/shared',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'server',
          root: './apps/server',
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'web',
          root: './apps/web',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'admin',
          root: './apps/admin',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          root: './e2e',
          include: ['**/*.e2e.ts'],
          globalSetup: ['./support/build-once.ts'],
          // A loaded machine (two journeys, each with a portal and a Chromium, on two cores) is
          // slow, never stuck: a journey with several axe runs at both widths needs more than two
          // minutes there, and a poll waits as long as a locator does rather than vitest's 1 s.
          testTimeout: 240_000,
          hookTimeout: 180_000,
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
