/**
 * Import FIRST (before billing-env) in a test file that stores releases on S3: starts a local
 * S3-compatible server (s3rver) with a bucket and points the S3_* settings at it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import S3rver from 's3rver'
import { afterAll } from 'vitest'

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-s3-'))
export const S3_BUCKET = 'kit-releases'
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: S3_BUCKET }],
})
const { port } = await server.run()
export const s3Endpoint = `http://127.0.0.1:${port}`

Object.assign(process.env, {
  S3_BUCKET,
  S3_REGION: 'us-east-1',
  S3_ENDPOINT: s3Endpoint,
  S3_ACCESS_KEY_ID: 'S3RVER',
  S3_SECRET_ACCESS_KEY: 'S3RVER',
})

afterAll(async () => {
  await server.close()
  fs.rmSync(directory, { recursive: true, force: true })
})
