// `npm run build:static`, the build's last step: writes a brotli (.br, quality 11) and a gzip (.gz,
// level 9) copy next to each text file of Next's static assets (.next/static: the pages' and the
// admin's scripts and styles). The express host serves those copies as they are (src/server/host.ts),
// so no request pays for compressing an asset that never changes, and each is smaller than compressing
// it on the fly would make it. A copy that would not be smaller is not written.
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import zlib from 'node:zlib'

const root = path.resolve(import.meta.dirname, '..')
const dir = path.join(root, process.env.PRECOMPRESS_DIR ?? '.next/static')
const TEXT = new Set(['.js', '.mjs', '.css', '.svg', '.json', '.txt', '.map', '.webmanifest'])
const MIN_BYTES = 1024

const brotli = promisify(zlib.brotliCompress)
const gzip = promisify(zlib.gzip)

const files = fs
  .readdirSync(dir, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && TEXT.has(path.extname(entry.name)))
  .map((entry) => path.join(entry.parentPath, entry.name))

const started = Date.now()
let before = 0
let after = 0
await Promise.all(
  files.map(async (file) => {
    const content = await fs.promises.readFile(file)
    if (content.length < MIN_BYTES) return
    const [br, gz] = await Promise.all([
      brotli(content, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length },
      }),
      gzip(content, { level: 9 }),
    ])
    before += content.length
    after += Math.min(content.length, br.length)
    if (br.length < content.length) await fs.promises.writeFile(`${file}.br`, br)
    if (gz.length < content.length) await fs.promises.writeFile(`${file}.gz`, gz)
  }),
)
console.log(
  `build:static: ${files.length} files in ${path.relative(root, dir)}, ${(before / 1024).toFixed(0)} KiB -> ${(after / 1024).toFixed(0)} KiB with brotli (${((Date.now() - started) / 1000).toFixed(1)} s)`,
)
