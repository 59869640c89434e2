/**
 * Application graph validation (docs/applications.md): every problem of a
 * graph at once, in a stable order — no input node, duplicate node ids, edges naming unknown nodes,
 * cycles.
 */
import type { ApplicationEdge, ApplicationErrorCode, ApplicationNode } from "@platform-kit/schema"
import { quoteValue } from "../http/issues.js"

export interface GraphProblem {
  readonly error_code: ApplicationErrorCode
  readonly message: string
}

/** An input node is one whose `application_node_schema_id` ends in `_input_schema`. */
export const isInputNode = (node: ApplicationNode) => node.application_node_schema_id.endsWith("_input_schema")

/**
 * The strongly connected components of a directed graph (iterative Tarjan), each a list of node
 * ids. `order` lists every node once.
 */
const components = (
  order: ReadonlyArray<string>,
  successors: ReadonlyMap<string, ReadonlyArray<string>>
): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: Array<string> = []
  const out: Array<Array<string>> = []
  let counter = 0
  const visit = (node: string) => {
    index.set(node, counter)
    low.set(node, counter)
    counter++
    stack.push(node)
    onStack.add(node)
  }
  for (const root of order) {
    if (index.has(root)) continue
    visit(root)
    const work: Array<{ node: string; next: number }> = [{ node: root, next: 0 }]
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      const next = successors.get(frame.node) ?? []
      if (frame.next < next.length) {
        const target = next[frame.next++]!
        if (!index.has(target)) {
          visit(target)
          work.push({ node: target, next: 0 })
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!))
        }
        continue
      }
      work.pop()
      const parent = work[work.length - 1]
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!))
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: Array<string> = []
        let member: string
        do {
          member = stack.pop()!
          onStack.delete(member)
          component.push(member)
        } while (member !== frame.node)
        out.push(component)
      }
    }
  }
  return out
}

export const validateGraph = (
  nodes: ReadonlyArray<ApplicationNode>,
  edges: ReadonlyArray<ApplicationEdge>
): ReadonlyArray<GraphProblem> => {
  const problems: Array<GraphProblem> = []

  if (!nodes.some(isInputNode)) {
    problems.push({
      error_code: "INVALID_APPLICATION_NO_INPUT_NODE",
      message: "The application has no input node (a node whose application_node_schema_id ends in _input_schema)"
    })
  }

  // node ids in order of first appearance, and how often each appears
  const counts = new Map<string, number>()
  for (const node of nodes) counts.set(node.id, (counts.get(node.id) ?? 0) + 1)
  const order = [...counts.keys()]
  for (const [id, count] of counts) {
    if (count > 1) {
      problems.push({
        error_code: "INVALID_APPLICATION_DUPLICATE_NODE_ID",
        message: `Node id ${quoteValue(id)} is used by ${count} nodes`
      })
    }
  }

  const successors = new Map<string, Array<string>>()
  edges.forEach((edge, i) => {
    let known = true
    for (const end of [edge.from_node, edge.to_node]) {
      if (!counts.has(end)) {
        known = false
        problems.push({
          error_code: "INVALID_APPLICATION_UNKNOWN_NODE",
          message: `Edge ${i} (${quoteValue(edge.from_node)} -> ${quoteValue(edge.to_node)}) names node ${quoteValue(end)}, which is not in the graph`
        })
      }
    }
    if (!known) return
    const next = successors.get(edge.from_node)
    if (next === undefined) successors.set(edge.from_node, [edge.to_node])
    else next.push(edge.to_node)
  })

  const position = new Map(order.map((id, i) => [id, i] as const))
  const cycles = components(order, successors)
    .filter((component) =>
      component.length > 1 || (successors.get(component[0]!) ?? []).includes(component[0]!)
    )
    .map((component) => component.sort((a, b) => position.get(a)! - position.get(b)!))
    .sort((a, b) => position.get(a[0]!)! - position.get(b[0]!)!)
  for (const cycle of cycles) {
    problems.push({
      error_code: "INVALID_APPLICATION_CYCLE",
      message: `The edges form a cycle through node${cycle.length > 1 ? "s" : ""} ${cycle.map(quoteValue).join(", ")}`
    })
  }
  return problems
}
