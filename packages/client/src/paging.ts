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
