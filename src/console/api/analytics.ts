import type { ApiClient, Query } from './client.ts'

/** The project's mail over time (GET /api/v1/analytics/email-time-series, src/http/routes/analytics.ts). */

export interface Counts {
  sent: number
  delivered: number
  deferred: number
  opened: number
  clicked: number
  bounced: number
  complained: number
}

export interface TimeSeries {
  bucket: 'hour' | 'day'
  /** When the first bucket starts. */
  startDate: string
  /** When the last bucket ends (not included). */
  endDate: string
  /** Every bucket, oldest first; `date` is YYYY-MM-DD for a day, the hour's start for an hour. */
  result: Array<Counts & { date: string }>
  totalCounts: Counts
}

export const analyticsApi = (api: ApiClient) => ({
  timeSeries: (query: Query) => api.get<TimeSeries>('/api/v1/analytics/email-time-series', query),
})
