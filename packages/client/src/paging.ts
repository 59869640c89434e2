/** Streams over list endpoints, following pages until the last. */
import { Chunk, Effect, Option, Stream } from "effect"

interface V4Page<A> {
  readonly items: ReadonlyArray<A>
  readonly total_item_count: number
  readonly current_page: number
  readonly items_per_page: number
}

/**
 * Every item of a v4 list, page after page: `v4Items((page) => client.modelGroups.list({ urlParams: { page, limit: 100 } }))`.
 */
export const v4Items = <A, E, R>(fetch: (page: number) => Effect.Effect<V4Page<A>, E, R>): Stream.Stream<A, E, R> =>
  Stream.paginateChunkEffect(1, (page) =>
    Effect.map(fetch(page), (result) => {
      const seen = (result.current_page - 1) * result.items_per_page + result.items.length
      const more = result.items.length > 0 && seen < result.total_item_count
      return [Chunk.fromIterable(result.items), more ? Option.some(page + 1) : Option.none()] as const
    }))

interface V5List<A> {
  readonly items: ReadonlyArray<A>
  readonly has_more: boolean
}

/**
 * Every item of a v5 list, following the cursor (`starting_after` = the last item's id) until
 * `has_more` is false: `v5Items((starting_after) => client.evaluations.list({ urlParams: { starting_after, limit: 100 } }))`.
 * The list order is whatever the request asks for (`sort_order`, `sort_by`); rows inserted while
 * the stream runs are neither repeated nor skipped (the server pages by keyset).
 */
export const v5Items = <A extends { readonly id: string }, E, R>(
  fetch: (startingAfter: string | undefined) => Effect.Effect<V5List<A>, E, R>
): Stream.Stream<A, E, R> =>
  Stream.paginateChunkEffect(undefined as string | undefined, (cursor) =>
    Effect.map(fetch(cursor), (result) => {
      const last = result.items[result.items.length - 1]
      const next = result.has_more && last !== undefined ? Option.some(last.id) : Option.none()
      return [Chunk.fromIterable(result.items), next] as const
    }))

/**
 * Every item of a list answered as a bare array and asked for after the last item seen, as
 * `/events` is (`last_processed_event_id`): `afterItems((after) => client.events.list({ urlParams:
 * { task_id, agent_id, limit: 100, ...(after === undefined ? {} : { last_processed_event_id: after }) } }), 100)`.
 * Follows until a page comes back shorter than `limit`.
 */
export const afterItems = <A extends { readonly id: string }, E, R>(
  fetch: (after: string | undefined) => Effect.Effect<ReadonlyArray<A>, E, R>,
  limit: number
): Stream.Stream<A, E, R> =>
  Stream.paginateChunkEffect(undefined as string | undefined, (after) =>
    Effect.map(fetch(after), (items) => {
      const last = items[items.length - 1]
      const next = items.length >= limit && last !== undefined ? Option.some(last.id) : Option.none()
      return [Chunk.fromIterable(items), next] as const
    }))
