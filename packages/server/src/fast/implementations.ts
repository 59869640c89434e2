/**
 * The handlers the lean server (server.ts) serves: `recordingGroup` implements a group as
 * `HttpApiBuilder.group` does and also keeps what it built, the group's handlers and the context
 * they run in, in `Implementations`. The composition (server.ts, `LeanHttpLive`) hands it to the
 * families in place of `builderGroup` (http/groups.ts): the builder's router gets the handlers as
 * always, and the lean server reads the same ones from here (one implementation, two servers).
 */
import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Context, Effect, Layer } from "effect"
import type { ImplementGroup } from "../http/groups.js"

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

/** `HttpApiBuilder.group`, recording the group's handlers in `Implementations` when it is provided. */
export const recordingGroup: ImplementGroup = (name, build) =>
  HttpApiBuilder.group(PlatformApi, name, (handlers) => {
    const built: unknown = build(handlers)
    return (Effect.isEffect(built)
      ? Effect.flatMap(built as Effect.Effect<any>, (h) => record(name, h))
      : record(name, built as any)) as any
  }) as any
