// A stand-in in built code: bundled (esbuild heads each module with a `// <path>` comment), or imported
// from the workspace package (packages stay external, so its name would be an import). Used by
// scripts/build-server.mjs on every built entry point and by tests/int/production-bundle.test.ts.
export const STANDIN_IN_BUNDLE =
  /^\/\/ (?:packages\/standins\/|src\/process\/development-standins\.ts)|["']@starter-kit\/standins/m
