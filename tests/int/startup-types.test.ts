import { BasePayload, type Payload } from 'payload'
import { afterEach, describe, expect, it, vi } from 'vitest'

import config from '../../payload.config'
import { generateTypesLater, STARTUP_TYPES_DELAY_MS, withoutStartupTypes } from '../../src/process/startup-types'

/**
 * Outside production Payload generates the types whenever an instance starts, in a process of its own
 * (docs/PATCHES.md, `startup-types`). The database preparation and the server's first start go without
 * it; the server generates them later. (NODE_ENV is `test` here: not production.)
 */
describe('types generated at start', () => {
  afterEach(() => {
    vi.restoreAllMocks()
    vi.useRealTimers()
  })

  const start = async (startConfig: typeof config) => {
    const bin = vi.spyOn(BasePayload.prototype, 'bin').mockResolvedValue({ code: 0 })
    await new BasePayload().init({ config: startConfig, disableDBConnect: true, disableOnInit: true })
    return bin
  }

  it("Payload's start spawns the generator with the config as it is (the behaviour this works around)", async () => {
    expect(await start(config)).toHaveBeenCalledWith(expect.objectContaining({ args: ['generate:types'] }))
  })

  it('does not with withoutStartupTypes, and the config itself still asks for them', async () => {
    expect(await start(withoutStartupTypes(config))).not.toHaveBeenCalled()
    expect((await config).typescript.autoGenerate).not.toBe(false)
  })

  it('generateTypesLater runs the generator once, after the delay', async () => {
    vi.useFakeTimers()
    const bin = vi.fn().mockResolvedValue({ code: 0 })
    generateTypesLater({ bin } as unknown as Payload, await config)
    await vi.advanceTimersByTimeAsync(STARTUP_TYPES_DELAY_MS - 1)
    expect(bin).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(bin).toHaveBeenCalledExactlyOnceWith({ args: ['generate:types'], log: false })
  })
})
