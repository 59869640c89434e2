/**
 * The typed client for programs that do not use Effect: the same operations, each returning a
 * Promise (`await platform.modelGroups.get({ path: { model_group_id } })`), with the same defaults
 * (retries, time limit, idempotency keys) and the failures thrown as classes:
 *
 * - `PlatformApiError`: the server answered an error status; `status`, the body's `detail` (a
 *   string, or for a 422 the array of `{loc, msg, type}`), the whole `body`, and `tag` (the
 *   contract's error name, as the Effect client's `_tag`);
 * - `PlatformConnectionError`: no answer (the connection failed, or an attempt's time ran out,
 *   after the retries);
 * - `PlatformSchemaError`: a request the operation's Schema rejects, found before anything is
 *   sent (or an answer that does not match its Schema); `issues` lists each problem's path and
 *   message.
 */
import { PlatformApi } from "@platform-kit/api"
import { makePromiseClientOf, type PromiseClientOf, type PromiseClientOptions } from "./apiClient.js"

// defined beside `makePromiseClientOf` (the client of a part of the API), exported here as before
export { PlatformApiError, PlatformConnectionError, PlatformSchemaError, type PromiseClientOptions } from "./apiClient.js"

/** Every operation of the API, grouped as in the Effect client, returning Promises. */
export type PromiseClient = PromiseClientOf<typeof PlatformApi>

/**
 * A client whose operations return Promises. What is not given comes from the environment
 * (`PLATFORM_BASE_URL`, `PLATFORM_API_KEY`, `PLATFORM_ACCOUNT_ID`, `PLATFORM_MAX_RETRIES`,
 * `PLATFORM_TIMEOUT_SECONDS`). Call `close()` when done.
 */
export const makePromiseClient = (options: PromiseClientOptions = {}): PromiseClient => makePromiseClientOf(PlatformApi, options)
