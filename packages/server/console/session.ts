/**
 * The signed-in session: the API key and the selected account, kept in the tab's sessionStorage
 * (gone when the tab closes; never put in a URL, never logged), and the kit's own clients made
 * from them: the Promise facade for the API's operations and the Effect streams for generations
 * (`@platform-kit/client`). The console calls nothing else: what it can do, a client can do.
 */
import { FetchHttpClient } from "@effect/platform"
import { makePromiseClientOf, makeStreams, PlatformApiError, PlatformConnectionError, type PromiseClientOf } from "@platform-kit/client"
import type { AccessProfile } from "@platform-kit/schema"
import { Cause, Effect, Fiber, Option, Stream } from "effect"
import { ConsoleApi } from "./api.js"

const keyItem = "platform-kit.console.key"
const accountItem = "platform-kit.console.account"
/** The control plane's admin key (the lifecycles page), kept as the API key is and forgotten with it. */
export const adminKeyItem = "platform-kit.console.admin-key"

export interface Session {
  readonly key: string
  /** The accounts of the key (`GET /user-info`'s `access_profiles`). */
  readonly profiles: ReadonlyArray<AccessProfile>
  /** The selected account (`x-selected-account-id`), one of `profiles`. */
  readonly accountId: string | undefined
  readonly client: ConsoleClient
}

/** The kit's Promise client over the groups the console calls (api.ts). */
export type ConsoleClient = PromiseClientOf<typeof ConsoleApi>

/** The kit's Promise client for `key` and `accountId`, calling the server the console was loaded from. */
export const clientFor = (key: string, accountId: string | undefined): ConsoleClient =>
  makePromiseClientOf(ConsoleApi, { baseUrl: location.origin, apiKey: key, accountId })

/**
 * Signs in with `key`: the key's accounts (a wrong key throws the 401), the account kept from an
 * earlier sign-in in this tab when it is still one of them, else the first. Stores the key only
 * once it is accepted.
 */
export const signIn = async (key: string): Promise<Session> => {
  const probe = clientFor(key, undefined)
  try {
    const info = await probe.users.info()
    const kept = sessionStorage.getItem(accountItem)
    const accountId = info.access_profiles.find((profile) => profile.account.id === kept)?.account.id ??
      info.access_profiles[0]?.account.id
    sessionStorage.setItem(keyItem, key)
    if (accountId !== undefined) sessionStorage.setItem(accountItem, accountId)
    return { key, profiles: info.access_profiles, accountId, client: clientFor(key, accountId) }
  } finally {
    void probe.close()
  }
}

/** The key this tab signed in with, if any. */
export const storedKey = (): string | null => sessionStorage.getItem(keyItem)

/** The list query naming the selected account (`account_id`), for the lists that narrow to one. */
export const inAccount = (session: Session): { readonly account_id?: string } =>
  session.accountId === undefined ? {} : { account_id: session.accountId }

/** The same session on another of its accounts. */
export const switchAccount = (session: Session, accountId: string): Session => {
  void session.client.close()
  sessionStorage.setItem(accountItem, accountId)
  return { ...session, accountId, client: clientFor(session.key, accountId) }
}

export const signOut = (session: Session | undefined) => {
  sessionStorage.removeItem(keyItem)
  sessionStorage.removeItem(accountItem)
  sessionStorage.removeItem(adminKeyItem)
  if (session !== undefined) void session.client.close()
}

/** What a failure says to a person: the API's `detail` (a 422's issues one per line), or the error's message. */
export const describeError = (error: unknown): string => {
  if (error instanceof PlatformApiError) {
    const detail = error.detail
    if (typeof detail === "string") return detail
    if (Array.isArray(detail)) {
      return detail.map((issue: { loc?: ReadonlyArray<unknown>; msg?: string }) =>
        `${(issue.loc ?? []).join(".")}: ${issue.msg ?? ""}`
      ).join("\n")
    }
    return `${error.status} ${error.tag}`
  }
  if (error instanceof PlatformConnectionError) return `The server did not answer: ${error.message}`
  if (typeof error === "object" && error !== null && "detail" in error && typeof error.detail === "string") return error.detail
  return error instanceof Error ? error.message : String(error)
}

export interface ChatMessage {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

/**
 * Streams a chat completion (`POST /v4/chat-completions` with `stream: true`, docs/models.md
 * "Streaming") of `model` (`builtin` or a deployment's id): `onPiece` gets each piece of the
 * reply as it arrives. Answers a function that stops the stream (closing its connection: the
 * server then stops the model too); `onEnd` is called once, with the failure if there was one.
 */
export const streamChat = (
  session: Session,
  body: { readonly model: string; readonly messages: ReadonlyArray<ChatMessage> },
  onPiece: (piece: string) => void,
  onEnd: (failure: unknown) => void
): (() => void) => {
  const program = Effect.gen(function*() {
    const streams = yield* makeStreams({ baseUrl: location.origin, apiKey: session.key, accountId: session.accountId })
    yield* Stream.runForEach(streams.chatCompletionsByModel(body), (frame) =>
      Effect.sync(() => {
        const piece = frame.chat_completion.message.content
        if (piece !== "") onPiece(piece)
      }))
  }).pipe(Effect.provide(FetchHttpClient.layer))
  const fiber = Effect.runFork(program)
  fiber.addObserver((exit) => {
    if (exit._tag === "Success" || Cause.isInterruptedOnly(exit.cause)) return onEnd(undefined)
    onEnd(Option.getOrElse(Cause.failureOption(exit.cause), () => Cause.squash(exit.cause)))
  })
  return () => void Effect.runFork(Fiber.interrupt(fiber))
}
