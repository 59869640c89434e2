/**
 * How a family implements its groups of the API. A family's `http.ts` exports, per group, a
 * function of an `ImplementGroup` that calls it as it would call `HttpApiBuilder.group` (the API
 * already given):
 *
 *   export const ModelGroupsHttp = (group: ImplementGroup) =>
 *     group("modelGroups", (handlers) => handlers.handle("get", …)).pipe(Layer.provide(…))
 *
 * The composition at the top (`app.ts`) decides what `group` does: `HttpApiBuilder.group` itself
 * (`builderGroup`) for `HttpApiBuilder.serve`, or that plus a record of the handlers it built, for
 * the standalone server's lean server (fast/server.ts), which serves the very same handlers.
 */
import { HttpApiBuilder } from "@effect/platform"
import type { HttpApi, HttpApiGroup } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import type { Layer, Scope } from "effect"

type Api = typeof PlatformApi
type ApiId = Api extends HttpApi.HttpApi<infer Id, any, any, any> ? Id : never
type Groups = Api extends HttpApi.HttpApi<any, infer G, any, any> ? G : never
type ApiError = Api extends HttpApi.HttpApi<any, any, infer E, any> ? E : never
type ApiR = Api extends HttpApi.HttpApi<any, any, any, infer R> ? R : never

/** The name of one group of the API. */
export type GroupName = HttpApiGroup.HttpApiGroup.Name<Groups>

/** What a group's build is handed: the handlers to fill, as `HttpApiBuilder.group` hands them. */
export type GroupHandlers<Name extends GroupName> = HttpApiBuilder.Handlers.FromGroup<
  ApiError,
  ApiR,
  HttpApiGroup.HttpApiGroup.WithName<Groups, Name>
>

/** `HttpApiBuilder.group` on the platform's API: the group's name and its build give its Layer. */
export type ImplementGroup = <const Name extends GroupName, Return>(
  name: Name,
  build: (handlers: GroupHandlers<Name>) => HttpApiBuilder.Handlers.ValidateReturn<Return>
) => Layer.Layer<
  HttpApiGroup.ApiGroup<ApiId, Name>,
  HttpApiBuilder.Handlers.Error<Return>,
  Exclude<HttpApiBuilder.Handlers.Context<Return> | HttpApiGroup.HttpApiGroup.MiddlewareWithName<Groups, Name>, Scope.Scope>
>

/** `HttpApiBuilder.group` itself: the handlers go to the builder's router only. */
export const builderGroup: ImplementGroup = (name, build) => HttpApiBuilder.group(PlatformApi, name, build as any) as any
