/**
 * CORS from a real browser (docs/operations.md "CORS"): a page served on another origin calls the
 * standalone server with `fetch` in headless Chromium. With `PLATFORM_CORS_ORIGINS` naming the
 * page's origin its calls (a preflighted POST with the key and a JSON body, a GET, an error) are
 * answered and readable, the exposed request id included; without it the browser refuses them.
 */
import { assert, describe, it } from "@effect/vitest"
import { launchBrowser, pageServer } from "../support/browser.js"
import { serverAccount, serverKey, startServer } from "../support/processes.js"

/** What the page's script saw of its calls, or the error that refused them. */
interface Seen {
  readonly created?: { readonly status: number; readonly name: string; readonly requestId: string | null }
  readonly read?: { readonly status: number; readonly id: string }
  readonly missing?: { readonly status: number; readonly detail: string }
  readonly refused?: string
}

/** Runs in the page: a POST (preflighted: a key and a JSON body), a GET of what it made, a 404. */
const callTheKit = async ({ account, api, key }: { account: string; api: string; key: string }): Promise<Seen> => {
  try {
    const post = await fetch(`${api}/v4/model-groups`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ name: "made in a browser", account_id: account })
    })
    const created = (await post.json()) as { id: string; name: string }
    const get = await fetch(`${api}/v4/model-groups/${created.id}`, { headers: { "x-api-key": key } })
    const missing = await fetch(`${api}/v4/model-groups/none`, { headers: { "x-api-key": key } })
    return {
      created: { status: post.status, name: created.name, requestId: post.headers.get("x-request-id") },
      read: { status: get.status, id: ((await get.json()) as { id: string }).id },
      missing: { status: missing.status, detail: ((await missing.json()) as { detail: string }).detail }
    }
  } catch (error) {
    return { refused: String(error) }
  }
}

describe("CORS in a browser", () => {
  it("a page on another origin calls the kit with CORS on for its origin, and is refused with it off", async () => {
    const [page, browser] = await Promise.all([pageServer("localhost"), launchBrowser()])
    const [on, off] = await Promise.all([
      startServer({ databaseUrl: "sqlite::memory:", env: { PLATFORM_CORS_ORIGINS: page.origin } }),
      startServer({ databaseUrl: "sqlite::memory:" })
    ])
    try {
      const tab = await browser.newPage()
      await tab.goto(page.origin)
      const allowed = await tab.evaluate(callTheKit, { account: serverAccount, api: `http://127.0.0.1:${on.port}`, key: serverKey })
      assert.isUndefined(allowed.refused, allowed.refused)
      assert.strictEqual(allowed.created?.status, 200)
      assert.strictEqual(allowed.created?.name, "made in a browser")
      assert.match(allowed.created?.requestId ?? "", /^[0-9a-f-]{36}$/)
      assert.strictEqual(allowed.read?.status, 200)
      assert.strictEqual(allowed.missing?.status, 404)
      assert.isString(allowed.missing?.detail)

      const refused = await tab.evaluate(callTheKit, { account: serverAccount, api: `http://127.0.0.1:${off.port}`, key: serverKey })
      assert.match(refused.refused ?? "", /TypeError: Failed to fetch/)
      assert.isUndefined(refused.created)
      // refused at the preflight: the POST never reached the server
      const listed = await fetch(`http://127.0.0.1:${off.port}/v4/model-groups`, { headers: { "x-api-key": serverKey } })
      assert.strictEqual(((await listed.json()) as { total_item_count: number }).total_item_count, 0)
    } finally {
      await Promise.all([browser.close(), page.close(), on.stop(), off.stop()])
    }
  }, 120_000)
})
