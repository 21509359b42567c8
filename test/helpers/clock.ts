import type { Clock } from '../../src/lib/clock.ts'

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  constructor(private ms = Date.parse('2026-11-01T12:00:00Z')) {}
  now = () => this.ms
  advance(ms: number): void {
    this.ms += ms
  }
}
