import type { ApiClient, Query } from './api-client.ts'
import type { Schema } from './api-types.ts'

/** The project's mail over time (GET /api/v1/analytics/email-time-series, src/http/routes/analytics.routes.ts). */

export type Counts = TimeSeries['totalCounts']

export type TimeSeries = Schema<'EmailTimeSeries'>

export const analyticsApi = (api: ApiClient) => ({
  timeSeries: (query: Query) => api.get<TimeSeries>('/api/v1/analytics/email-time-series', query),
})
