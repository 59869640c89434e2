/**
 * `group` is `HttpApiBuilder.group` that also keeps what it built: the group's handlers and the
 * context they run in, in `Implementations`. The builder's router gets them as always; the lean
 * Node engine (engine.ts) reads them from there, so a handler is written once and served by both.
 *
 * Without `Implementations` in the context (an application composing the groups its own way), it is
 * exactly `HttpApiBuilder.group`.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Context, Effect, Layer } from "effect"

/** One implemented endpoint, as the builder holds it (`HttpApiBuilder.Handlers.Item`). */
export type ImplementedEndpoint = HttpApiBuilder.Handlers.Item<unknown, unknown>

/** What a group's layer built: its handlers and the context its layer was built in. */
export interface Implementation {
  readonly handlers: ReadonlyArray<ImplementedEndpoint>
  readonly context: Context.Context<never>
}

/** Every group built so far, by name. Filled while the group layers are built. */
export class Implementations extends Context.Tag("@platform-kit/server/Implementations")<
  Implementations,
  Map<string, Implementation>
>() {
  static readonly layer = Layer.sync(Implementations, () => new Map<string, Implementation>())
}

const record = (name: string, handlers: HttpApiBuilder.Handlers<any, any, any, any>) =>
  Effect.flatMap(Effect.serviceOption(Implementations), (registry) =>
    Effect.map(Effect.context<never>(), (context) => {
      if (registry._tag === "Some") registry.value.set(name, { handlers: [...handlers.handlers], context })
      return handlers
    }))

/** `HttpApiBuilder.group`, recording the group's handlers in `Implementations` (see the module comment). */
export const group: typeof HttpApiBuilder.group = (api, groupName, build) =>
  HttpApiBuilder.group(api, groupName, (handlers) => {
    const built: unknown = build(handlers)
    return (Effect.isEffect(built)
      ? Effect.flatMap(built as Effect.Effect<any>, (h) => record(groupName, h))
      : record(groupName, built as any)) as any
  }) as any
