/**
 * Checks that racing PATCHes of one entity behaved as if applied one after the other.
 *
 * The race: writers of kind "a" each set field pair A to their own value, writers of kind "b" set
 * field pair B. Each answer shows the state right after that writer: its own value, and the value
 * of the other pair it found, i.e. the other kind's writer applied last before it ("start" if
 * none). In a serial history the answers fall into alternating blocks: a run of one kind all
 * finding the same value (the last writer of the run before), then a run of the other kind all
 * finding the value of one member of that run, and so on; the first run finds "start". A lost
 * update (a writer that read a state another writer had already replaced) breaks that chain.
 */
import { assert } from "@effect/vitest"

export interface Answer {
  readonly kind: "a" | "b"
  /** The writer's own value. */
  readonly own: string
  /** The other pair's value in its answer: another writer's value, or "start". */
  readonly seen: string
}

/**
 * Asserts that `answers` form a serial history ending in `final` (the entity's state read after the
 * race: the value of pair A and of pair B).
 */
export const assertSerial = (answers: ReadonlyArray<Answer>, final: { readonly a: string; readonly b: string }) => {
  // runs of one kind, keyed by what they found
  const runs = { a: new Map<string, Array<string>>(), b: new Map<string, Array<string>>() }
  for (const answer of answers) {
    const run = runs[answer.kind].get(answer.seen) ?? []
    run.push(answer.own)
    runs[answer.kind].set(answer.seen, run)
  }
  const first = (["a", "b"] as const).filter((kind) => runs[kind].has("start"))
  assert.strictEqual(first.length, 1, `exactly one kind may have found the start state: ${JSON.stringify(answers)}`)
  let kind: "a" | "b" = first[0]!
  let members = runs[kind].get("start")!
  let seen = "start"
  let consumed = members.length
  for (;;) {
    const other = kind === "a" ? "b" : "a"
    const next = [...runs[other].entries()].filter(([found]) => members.includes(found))
    assert.isAtMost(next.length, 1, `two runs found values of the same run: ${JSON.stringify(answers)}`)
    if (next.length === 0) break
    seen = next[0]![0]
    members = next[0]![1]
    kind = other
    consumed += members.length
  }
  assert.strictEqual(consumed, answers.length, `answers outside the serial chain (a lost update): ${JSON.stringify(answers)}`)
  // the final state: the last run's kind holds one of its members, the other pair what that run found
  const ownFinal = kind === "a" ? final.a : final.b
  const otherFinal = kind === "a" ? final.b : final.a
  assert.include(members, ownFinal, "the final state is not the last writer's")
  assert.strictEqual(otherFinal, seen, "the final state lost a write of the other pair")
}

/** The writer a value names (`name 4`, `tag-7`, …), or "start". */
export const writer = (value: string | null | undefined): string =>
  value === "start" || value === null || value === undefined ? "start" : value.split(/[ -]/).at(-1)!

/**
 * `assertSerial` for the usual race: PATCH i writes `name i` + `description i` when i is even
 * (kind "a"), `tag-i` (and whatever else) when odd (kind "b"); `answers[i]` is PATCH i's answer.
 */
export const assertSerialNameAndTags = (
  answers: ReadonlyArray<{ readonly name: string; readonly tags: ReadonlyArray<string> }>,
  final: { readonly name: string; readonly tags: ReadonlyArray<string> }
) =>
  assertSerial(
    answers.map((answer, i) =>
      i % 2 === 0
        ? { kind: "a", own: writer(answer.name), seen: writer(answer.tags[0]) }
        : { kind: "b", own: writer(answer.tags[0]), seen: writer(answer.name) }
    ),
    { a: writer(final.name), b: writer(final.tags[0]) }
  )
