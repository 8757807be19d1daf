import type { ServerResponse } from 'node:http'

/**
 * Runs `then` with the status just before the status line and headers go out, whichever route or
 * failure rule answered. Headers set there still make it into the answer, and a request's record has
 * its status before the client can read the response (the `finish` event can come after that).
 */
export const beforeHead = (res: ServerResponse, then: (status: number) => void): void => {
  const writeHead = res.writeHead.bind(res)
  res.writeHead = ((...args: Parameters<ServerResponse['writeHead']>) => {
    res.writeHead = writeHead
    then(args[0])
    return writeHead(...args)
  }) as ServerResponse['writeHead']
}
