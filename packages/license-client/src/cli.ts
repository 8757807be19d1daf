#!/usr/bin/env node
import { parseArgs } from 'node:util'

import { createLicenseClient, LicenseClientError } from './index.js'

const USAGE = `Usage:
  license-client check --key KEY --service URL [--fingerprint F]
  license-client activate --key KEY --service URL [--fingerprint F] [--label NAME]
  license-client deactivate --service URL [--fingerprint F]

check prints the code (VALID, GRACE, EXPIRED, REVOKED, ...) and exits 0 for valid or grace, 1 otherwise.
State is kept under $XDG_CONFIG_HOME/license-client/, as the library keeps it.`

const main = async (argv: string[]): Promise<number> => {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      key: { type: 'string' },
      service: { type: 'string' },
      fingerprint: { type: 'string' },
      label: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [command] = positionals
  if (values.help || !command || positionals.length > 1) {
    console.log(USAGE)
    return values.help ? 0 : 2
  }
  const serviceUrl = values.service ?? process.env.LICENSE_SERVICE_URL
  if (!serviceUrl) {
    console.error('--service is required (or LICENSE_SERVICE_URL)')
    return 2
  }
  const client = createLicenseClient({ serviceUrl, ...(values.fingerprint ? { fingerprint: values.fingerprint } : {}) })
  switch (command) {
    case 'check': {
      if (!values.key) {
        console.error('--key is required')
        return 2
      }
      const result = await client.check({ key: values.key })
      console.log(values.json ? JSON.stringify(result) : result.code)
      return result.status === 'invalid' ? 1 : 0
    }
    case 'activate': {
      if (!values.key) {
        console.error('--key is required')
        return 2
      }
      const { activation, check } = await client.activate(values.key, values.label ? { label: values.label } : {})
      console.log(
        values.json
          ? JSON.stringify({ activation, check })
          : `activated (${activation.activations.used} of ${activation.activations.limit ?? 'unlimited'}): ${check.code}`,
      )
      return check.status === 'invalid' ? 1 : 0
    }
    case 'deactivate':
      await client.deactivate()
      console.log('deactivated')
      return 0
    default:
      console.error(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`)
      return 2
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    console.error(error instanceof LicenseClientError ? `${error.code}: ${error.message}` : String(error))
    process.exitCode = 1
  },
)
