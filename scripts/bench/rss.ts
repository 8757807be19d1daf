/**
 * Resident memory of the server: its own process (the group's leader, what the targets are about) and
 * its process group (anything it started), read from /proc once a second.
 */
import fs from 'node:fs'

const MIB = 1024 * 1024

/** The process group of a /proc/<pid>/stat line: the fifth field, counted after the name in parentheses. */
const processGroup = (stat: string): number => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])

const residentBytes = (pid: string): number => {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) * 1024 : 0
}

const groupRss = (pgid: number): number => {
  let total = 0
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (processGroup(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) === pgid) total += residentBytes(pid)
    } catch {
      // the process ended between listing and reading
    }
  }
  return total
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100

/** CPU seconds (user and system) the members of a process group have used so far. */
export const groupCpuSeconds = (pgid: number): number => {
  let ticks = 0
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (processGroup(stat) !== pgid) continue
      // utime and stime: the 14th and 15th fields, the 12th and 13th after the name.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // the process ended between listing and reading
    }
  }
  return ticks / TICKS_PER_SECOND
}

export type RssSampler = {
  /** The server process's highest RSS since the last `mark`, then starts a new window (per benchmarked path). */
  mark: () => number
  /** The server process's highest and last RSS, and its whole group's highest. */
  stop: () => { maxMiB: number; endMiB: number; groupMaxMiB: number; samples: number }
}

/** Samples the process `pgid` (a group's leader: the server) and its group. */
export const sampleRss = (pgid: number, intervalMs = 1000): RssSampler => {
  let max = 0
  let groupMax = 0
  let windowMax = 0
  let last = 0
  let samples = 0
  const sample = () => {
    try {
      last = residentBytes(String(pgid))
    } catch {
      last = 0
    }
    groupMax = Math.max(groupMax, groupRss(pgid))
    samples += 1
    max = Math.max(max, last)
    windowMax = Math.max(windowMax, last)
  }
  sample()
  const timer = setInterval(sample, intervalMs)
  return {
    mark: () => {
      sample()
      const value = windowMax / MIB
      windowMax = last
      return value
    },
    stop: () => {
      clearInterval(timer)
      sample()
      return { maxMiB: max / MIB, endMiB: last / MIB, groupMaxMiB: groupMax / MIB, samples }
    },
  }
}
