import { useEffect, useRef } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

export interface LineSeries {
  label: string
  color: string
}

interface LineChartProps {
  /** The chart's accessible name: what it draws and what it comes to (a table says the rest). */
  label: string
  /** x in seconds since the epoch, then one array per series. */
  data: [number[], ...number[][]]
  series: LineSeries[]
  height?: number
}

const UTC = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC')

/**
 * A time chart drawn by uPlot on a canvas, as wide as its box and redrawn when that changes. Its
 * module (and uPlot with its stylesheet) is loaded only by the pages that show a chart. Times on
 * the axis are UTC, like the API's buckets. The canvas is an image to assistive technology,
 * named by `label`; the page gives the numbers as a table too.
 */
export default function LineChart({ label, data, series, height = 260 }: LineChartProps) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height,
        tzDate: UTC,
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(max, 4)] } },
        axes: [{}, { values: (_u, ticks) => ticks.map((tick) => (Number.isInteger(tick) ? String(tick) : '')) }],
        series: [{ label: 'Time (UTC)' }, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: data[0].length <= 31 } }))],
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
  }, [data, series, height])
  return <div ref={box} role="img" aria-label={label} className="line-chart" />
}
