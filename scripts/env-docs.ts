import fs from 'node:fs'
import path from 'node:path'

import { ENV_EXAMPLE_FILE, envExample, ENVIRONMENT_DOC_FILE, environmentDoc } from '../src/config/env-docs'

/** `npm run docs:env`: write docs/ENVIRONMENT.md and .env.example from the schema in src/config/env.ts. */
for (const [file, text] of [
  [ENVIRONMENT_DOC_FILE, environmentDoc()],
  [ENV_EXAMPLE_FILE, envExample()],
] as const) {
  fs.writeFileSync(path.resolve(file), text)
  console.info(`wrote ${file}`)
}
