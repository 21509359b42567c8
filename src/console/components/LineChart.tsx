import { useEffect, useRef, useState } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

export interface LineSeries {
  label: string
  /** A colour token of tokens.css ("--series-1"): resolved for the canvas, again when the theme changes. */
  color: string
  /** What the legend says beside the name: the series' total over the range ("1,204" or "98.1 %"). */
  total?: string
}

export interface Threshold {
  value: number
  label: string
}

interface LineChartProps {
  /** The chart's accessible name: what it draws and what it comes to (a table says the rest). */
  label: string
  /** x in seconds since the epoch, then one array per series. */
  data: [number[], ...number[][]]
  series: LineSeries[]
  height?: number
  /** How a value reads on the axis and in the tooltip (a count by default; "0.3 %" for rates). */
  format?: (value: number) => string
  /** Horizontal lines where a rule sets a limit (the bulk-sender rules' 0.3 % complaints). */
  thresholds?: Threshold[]
  /** The least top of the y axis (so that a flat line of zeros is not drawn in the middle). */
  minTop?: number
}

const UTC = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC')
const count = (value: number) => (Number.isInteger(value) ? value.toLocaleString() : '')

/** A token's colour as the canvas needs it (rgb()): read through an element, which resolves var() and light-dark(). */
function resolveColor(element: HTMLElement, token: string): string {
  const probe = document.createElement('span')
  probe.style.color = `var(${token})`
  element.append(probe)
  const color = getComputedStyle(probe).color
  probe.remove()
  return color
}

/** Bumps when the theme changes (the system's scheme or the switch), so the canvas is drawn again in the new colours. */
function useThemeVersion(): number {
  const [version, setVersion] = useState(0)
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1)
    const media = matchMedia('(prefers-color-scheme: dark)')
    media.addEventListener('change', bump)
    const observer = new MutationObserver(bump)
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })
    return () => {
      media.removeEventListener('change', bump)
      observer.disconnect()
    }
  }, [])
  return version
}

/** Draws each threshold as a dashed line across the plot, its label above it at the right. */
function thresholdPlugin(thresholds: Threshold[], color: () => string): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const { ctx } = u
        const { left, top, width, height } = u.bbox
        for (const t of thresholds) {
          const y = Math.round(u.valToPos(t.value, 'y', true))
          if (y < top || y > top + height) continue
          ctx.save()
          ctx.strokeStyle = color()
          ctx.fillStyle = color()
          ctx.lineWidth = 1.5 * devicePixelRatio
          ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio])
          ctx.beginPath()
          ctx.moveTo(left, y)
          ctx.lineTo(left + width, y)
          ctx.stroke()
          ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`
          ctx.textAlign = 'right'
          ctx.fillText(t.label, left + width - 4 * devicePixelRatio, y - 4 * devicePixelRatio)
          ctx.restore()
        }
      },
    },
  }
}

interface Tip {
  left: number
  top: number
  time: string
  values: Array<{ label: string; color: string; value: string }>
}

// Styles set from script (React's style prop, uPlot's own) go through the CSSOM, which the policy's
// style-src 'self' allows; only style attributes in markup would be refused.

/**
 * A time chart drawn by uPlot on a canvas, as wide as its box and redrawn when that changes or the
 * theme does. Its legend names each series with its total; hovering shows a tooltip with each
 * value at that time. Its module (and uPlot with its stylesheet) is loaded only by the pages that
 * show a chart. Times are UTC, like the API's buckets. The canvas is an image to assistive
 * technology, named by `label`; the page gives the numbers as a table too.
 */
export default function LineChart({ label, data, series, height = 240, format = count, thresholds = [], minTop = 4 }: LineChartProps) {
  const box = useRef<HTMLDivElement>(null)
  const theme = useThemeVersion()
  const [tip, setTip] = useState<Tip | null>(null)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const colors = series.map((s) => resolveColor(element, s.color))
    const axis = resolveColor(element, '--chart-axis')
    const grid = resolveColor(element, '--chart-grid')
    const limit = resolveColor(element, '--chart-threshold')
    const top = Math.max(minTop, ...thresholds.map((t) => t.value * 1.5))
    const hourly = data[0].length > 1 && data[0][1]! - data[0][0]! < 86_400
    const timeOf = (seconds: number) =>
      new Intl.DateTimeFormat(undefined, hourly ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' } : { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }).format(new Date(seconds * 1000)) + (hourly ? ' UTC' : '')
    const axisStyle = { stroke: axis, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, font: '11px system-ui, sans-serif' }
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height,
        tzDate: UTC,
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { size: 7 } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(max * 1.1, top)] } },
        axes: [axisStyle, { ...axisStyle, size: 56, values: (_u, ticks) => ticks.map((tick) => format(tick)) }],
        series: [{ label: 'Time (UTC)' }, ...series.map((s, i) => ({ label: s.label, stroke: colors[i], width: 2, points: { show: data[0].length <= 31, size: 4 } }))],
        plugins: [thresholdPlugin(thresholds, () => limit)],
        hooks: {
          setCursor: [
            (u) => {
              const idx = u.cursor.idx
              if (idx === null || idx === undefined || u.cursor.left === undefined || u.cursor.left < 0) return setTip(null)
              setTip({
                left: u.cursor.left + u.bbox.left / devicePixelRatio,
                top: u.cursor.top ?? 0,
                time: timeOf(data[0][idx]!),
                values: series.map((s, i) => ({ label: s.label, color: colors[i]!, value: format(data[i + 1]![idx] ?? 0) })),
              })
            },
          ],
        },
      },
      data,
      element,
    )
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 200), height }))
    resize.observe(element)
    return () => {
      resize.disconnect()
      chart.destroy()
    }
  }, [data, series, height, format, thresholds, minTop, theme])
  return (
    <div className="chart">
      <ul className="chart-legend" aria-label="Legend">
        {series.map((s) => (
          <li key={s.label}>
            <span className="chart-swatch" style={{ background: `var(${s.color})` }} aria-hidden="true" />
            <span className="chart-legend-label">{s.label}</span>
            {s.total !== undefined && <span className="chart-legend-total">{s.total}</span>}
          </li>
        ))}
      </ul>
      <div className="chart-plot">
        <div ref={box} role="img" aria-label={label} className="line-chart" onMouseLeave={() => setTip(null)} />
        {tip && (
          <div className="chart-tooltip" aria-hidden="true" data-side={tip.left > (box.current?.clientWidth ?? 0) / 2 ? 'left' : 'right'} style={{ top: Math.max(0, tip.top - 20), left: tip.left }}>
            <p className="chart-tooltip-time">{tip.time}</p>
            {tip.values.map((v) => (
              <p key={v.label} className="chart-tooltip-row">
                <span className="chart-dot" style={{ background: v.color }} />
                <span>{v.label}</span>
                <strong>{v.value}</strong>
              </p>
            ))}
          </div>
        )}
      </div>
    </div>
  )
}
