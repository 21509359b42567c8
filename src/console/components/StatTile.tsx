import type { ReactNode } from 'react'

interface StatTileProps {
  label: string
  value: ReactNode
  /** A rate or a note under the value ("98.2 % delivered"). */
  detail?: ReactNode
  /** The change since the previous period, as a signed percentage; undefined when there is none to compare. */
  trend?: number
  /** Whether a rise is good (sent, delivered) or bad (bounced, complained). */
  riseIs?: 'good' | 'bad'
  /** The chart series this number is drawn in: a swatch of its colour. */
  series?: string
}

/** The trend as words and an arrow: "▲ 12 % on the previous period". */
function Trend({ trend, riseIs }: { trend: number; riseIs: 'good' | 'bad' }) {
  const flat = Math.abs(trend) < 0.5
  const good = flat ? undefined : (trend > 0) === (riseIs === 'good')
  const tone = flat ? 'neutral' : good ? 'ok' : 'bad'
  return (
    <span className={`stat-trend tone-${tone}`}>
      <span aria-hidden="true">{flat ? '→' : trend > 0 ? '↑' : '↓'}</span> {flat ? 'flat' : `${Math.abs(trend).toFixed(Math.abs(trend) < 10 ? 1 : 0)} %`}
      <span className="visually-hidden"> {flat ? '' : trend > 0 ? 'up' : 'down'} on the previous period</span>
    </span>
  )
}

/** One number of a dashboard: its name, the value, a rate or note, and its trend. */
export function StatTile({ label, value, detail, trend, riseIs = 'good', series }: StatTileProps) {
  return (
    <div className="stat-tile">
      <dt>
        {series && <span className="stat-swatch" data-series={series} aria-hidden="true" />}
        {label}
      </dt>
      <dd>
        <span className="stat-value">{value}</span>
        {(detail || trend !== undefined) && (
          <span className="stat-detail">
            {detail}
            {trend !== undefined && <Trend trend={trend} riseIs={riseIs} />}
          </span>
        )}
      </dd>
    </div>
  )
}
