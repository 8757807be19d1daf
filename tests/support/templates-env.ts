/**
 * Import right after billing-env (before anything reads the Payload config): template archives go
 * to a fresh folder of the test file's own, removed when it is done.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { afterAll } from 'vitest'

const templatesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-templates-'))
process.env.TEMPLATES_DIR = templatesDir

afterAll(() => {
  fs.rmSync(templatesDir, { recursive: true, force: true })
})
