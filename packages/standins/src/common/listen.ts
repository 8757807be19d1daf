import type http from 'node:http'
import type { AddressInfo } from 'node:net'

/** Listen on 127.0.0.1 (a stand-in is never reachable from elsewhere); resolves with the port. */
export const listenLocally = (server: http.Server, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve((server.address() as AddressInfo).port)
    })
  })
