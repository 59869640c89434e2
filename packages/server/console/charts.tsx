/**
 * Charts as plain SVG (docs/decisions.md "The console"): bars (a count or a value per label) and
 * a histogram of values in 0..1 (a metric's scores). No chart library: these are a few rectangles
 * and their labels, and every chart says what it shows in words too (`role="img"` with a label,
 * and the figures as a caption) for screen readers.
 */

const width = 360
const barHeight = 22
const labelWidth = 120

/** Horizontal bars, one per entry; the longest is `max` (the largest value by default). */
export const BarChart = (
  { title, bars, max, format = (value) => String(value) }: {
    readonly title: string
    readonly bars: ReadonlyArray<{ readonly label: string; readonly value: number }>
    readonly max?: number
    readonly format?: (value: number) => string
  }
) => {
  const top = Math.max(max ?? 0, ...bars.map((bar) => bar.value), 1e-9)
  const plot = width - labelWidth - 60
  const height = bars.length * (barHeight + 6) + 6
  const summary = bars.map((bar) => `${bar.label}: ${format(bar.value)}`).join(", ")
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={`${title}: ${summary}`}>
        {bars.map((bar, i) => {
          const y = 6 + i * (barHeight + 6)
          return (
            <g key={bar.label}>
              <text x={labelWidth - 6} y={y + barHeight / 2} text-anchor="end" dominant-baseline="middle" class="chart-label">
                {bar.label.length > 18 ? `${bar.label.slice(0, 17)}…` : bar.label}
              </text>
              <rect x={labelWidth} y={y} width={Math.max(1, (bar.value / top) * plot)} height={barHeight} rx={3} class="chart-bar" />
              <text x={labelWidth + Math.max(1, (bar.value / top) * plot) + 4} y={y + barHeight / 2} dominant-baseline="middle" class="chart-value">
                {format(bar.value)}
              </text>
            </g>
          )
        })}
      </svg>
      <figcaption>{title}</figcaption>
    </figure>
  )
}

/** Counts of `values` (each in 0..1) in `bins` equal bins, drawn as columns; the mean is named below. */
export const Histogram = (
  { title, values, bins = 10 }: { readonly title: string; readonly values: ReadonlyArray<number>; readonly bins?: number }
) => {
  const counts = Array.from({ length: bins }, () => 0)
  for (const value of values) counts[Math.min(bins - 1, Math.max(0, Math.floor(value * bins)))]! += 1
  const most = Math.max(1, ...counts)
  const height = 140
  const plotTop = 10
  const plotBottom = height - 24
  const column = (width - 20) / bins
  const mean = values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length
  const summary = counts.map((count, i) => `${(i / bins).toFixed(1)}–${((i + 1) / bins).toFixed(1)}: ${count}`).join(", ")
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={`${title}: ${summary}`}>
        <line x1={10} x2={width - 10} y1={plotBottom} y2={plotBottom} class="chart-axis" />
        {counts.map((count, i) => {
          const h = (count / most) * (plotBottom - plotTop)
          return (
            <g key={i}>
              <rect x={10 + i * column + 2} y={plotBottom - h} width={column - 4} height={h} rx={2} class="chart-bar" />
              {count > 0 && (
                <text x={10 + i * column + column / 2} y={plotBottom - h - 2} text-anchor="middle" class="chart-value">{count}</text>
              )}
            </g>
          )
        })}
        <text x={10} y={height - 8} class="chart-label">0</text>
        <text x={width / 2} y={height - 8} text-anchor="middle" class="chart-label">0.5</text>
        <text x={width - 10} y={height - 8} text-anchor="end" class="chart-label">1</text>
      </svg>
      <figcaption>{title}: {values.length} scored, mean {mean.toFixed(3)}</figcaption>
    </figure>
  )
}
