/**
 * An application variant's graph (docs/applications.md "Processing") drawn as plain SVG: each
 * node a box in the column of its depth (the longest path of edges reaching it), each edge a
 * curve from the output field of one node to the input field of another. No chart library: a
 * V0 graph is a handful of nodes. The same edges are listed as text for screen readers.
 */
import type { ApplicationEdge, ApplicationNode } from "@platform-kit/schema"

const nodeWidth = 190
const nodeHeight = 54
const columnGap = 150
const rowGap = 26
const margin = 12

/** Each node's column (its depth from the nodes no edge reaches) and row (its order in the column). */
export const layout = (nodes: ReadonlyArray<ApplicationNode>, edges: ReadonlyArray<ApplicationEdge>) => {
  const depth = new Map<string, number>(nodes.map((node) => [node.id, 0]))
  // longest path by relaxation, at most one round a node (a cycle, which validation refuses, stops there)
  for (let round = 0; round < nodes.length; round++) {
    let changed = false
    for (const edge of edges) {
      const from = depth.get(edge.from_node)
      const to = depth.get(edge.to_node)
      if (from === undefined || to === undefined || to > from) continue
      depth.set(edge.to_node, from + 1)
      changed = true
    }
    if (!changed) break
  }
  const rows = new Map<number, number>()
  const placed = new Map<string, { readonly x: number; readonly y: number }>()
  for (const node of nodes) {
    const column = depth.get(node.id) ?? 0
    const row = rows.get(column) ?? 0
    rows.set(column, row + 1)
    placed.set(node.id, { x: margin + column * (nodeWidth + columnGap), y: margin + row * (nodeHeight + rowGap) })
  }
  const columns = Math.max(1, ...[...depth.values()].map((d) => d + 1))
  const height = Math.max(1, ...rows.values())
  return {
    placed,
    width: margin * 2 + columns * nodeWidth + (columns - 1) * columnGap,
    height: margin * 2 + height * nodeHeight + (height - 1) * rowGap
  }
}

/** A node kind without its `_schema` suffix: `completion_model`. */
const kind = (node: ApplicationNode) => node.application_node_schema_id.replace(/_schema$/, "")

export const Graph = (
  { nodes, edges, label }: { readonly nodes: ReadonlyArray<ApplicationNode>; readonly edges: ReadonlyArray<ApplicationEdge>; readonly label: string }
) => {
  const { placed, width, height } = layout(nodes, edges)
  return (
    <figure class="graph">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        role="img"
        aria-label={`${label}: ${nodes.length} nodes, ${edges.length} edges`}
      >
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="edge-head" />
          </marker>
        </defs>
        {edges.map((edge, i) => {
          const from = placed.get(edge.from_node)
          const to = placed.get(edge.to_node)
          if (from === undefined || to === undefined) return null
          const x1 = from.x + nodeWidth
          const y1 = from.y + nodeHeight / 2
          const x2 = to.x
          const y2 = to.y + nodeHeight / 2
          const bend = Math.max(30, (x2 - x1) / 2)
          return (
            <g key={i} class="edge">
              <path d={`M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`} marker-end="url(#arrow)" />
              <text x={(x1 + x2) / 2} y={(y1 + y2) / 2 - 6} text-anchor="middle">{edge.from_field} → {edge.to_field}</text>
            </g>
          )
        })}
        {nodes.map((node) => {
          const at = placed.get(node.id)!
          return (
            <g key={node.id} class="node" transform={`translate(${at.x} ${at.y})`}>
              <rect width={nodeWidth} height={nodeHeight} rx="8" />
              <text x="10" y="22" class="node-id">{node.id}</text>
              <text x="10" y="42" class="node-kind">{kind(node)}</text>
            </g>
          )
        })}
      </svg>
      <figcaption>
        <details>
          <summary>The graph as text</summary>
          <ul>
            {nodes.map((node) => <li key={node.id}>Node <code>{node.id}</code>: {kind(node)}</li>)}
            {edges.map((edge, i) => (
              <li key={`edge-${i}`}>
                <code>{edge.from_node}</code>.{edge.from_field} → <code>{edge.to_node}</code>.{edge.to_field}
              </li>
            ))}
          </ul>
        </details>
      </figcaption>
    </figure>
  )
}
