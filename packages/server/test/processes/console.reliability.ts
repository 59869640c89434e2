/**
 * The console (docs/console.md) in a real browser: the standalone server as `npm start` runs it
 * (with the console the global setup built), headless Chromium. A wrong key shows the API's
 * `detail`; sign in with the test's key, which has two accounts (the switcher); the models page
 * and a model's deployments; the playground streams from a deployment of a slow upstream (the
 * reply is seen growing, then Stop cuts it and the server closes the upstream's connection) and
 * from the built-in model; the theme toggle; a narrow window; a knowledge base made, a file
 * uploaded and watched to `Completed`, a query's chunks with their scores; an application
 * variant's graph, a run's output and its trace; sign out forgets the key. No
 * console error on any page, and axe-core finds no serious or critical issue on each. Takes a
 * screenshot of each page: with `CONSOLE_SCREENSHOTS=1` into docs/console/ (the pictures
 * docs/console.md shows), else into a temporary folder (a test run leaves the tree as it was).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Page } from "playwright-core"
import { launchBrowser } from "../support/browser.js"
import { repoRoot, serverAccount, serverKey, startServer } from "../support/processes.js"

/** What the functions run in the page read of it (this file is type-checked without the DOM's types). */
declare const document: {
  readonly documentElement: { readonly dataset: Record<string, string | undefined>; readonly scrollWidth: number }
  readonly activeElement: { readonly id: string; readonly textContent: string | null } | null
}
declare const sessionStorage: object

const screenshots = process.env.CONSOLE_SCREENSHOTS === "1"
  ? Path.join(repoRoot, "docs/console")
  : Fs.mkdtempSync(Path.join(Os.tmpdir(), "console-screenshots-"))
const axeSource = Fs.readFileSync(Path.join(repoRoot, "node_modules/axe-core/axe.min.js"), "utf8")

/** The pieces the slow upstream streams, one every `pieceMs`. */
const pieces = Array.from({ length: 30 }, (_, i) => `word${i} `)
const pieceMs = 80

/**
 * An OpenAI-compatible upstream streaming `pieces` slowly; `closedEarly` counts the streams whose
 * connection was closed before their end (the kit stops its upstream when the caller stops).
 */
const slowUpstream = async () => {
  let closedEarly = 0
  const server = Http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      const chunk = (delta: Record<string, string>, finish: string | null) =>
        `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "slow", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      let i = 0
      const timer = setInterval(() => {
        if (i < pieces.length) res.write(chunk({ content: pieces[i++]! }, null))
        else {
          clearInterval(timer)
          res.end(`${chunk({}, "stop")}data: [DONE]\n\n`)
        }
      }, pieceMs)
      res.on("close", () => {
        clearInterval(timer)
        if (!res.writableEnded) closedEarly++
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    closedEarly: () => closedEarly,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** axe-core's serious and critical violations on the page as it is now. */
const axeViolations = async (page: Page) => {
  await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> } }).axe
    return (await axe.run(document)).violations
  })
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}) at ${JSON.stringify(violation.nodes.map((node) => node.target))}`)
}

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 5_000) => {
  const start = Date.now()
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe("the console in a browser", () => {
  it("is within its budget: 300 KB gzipped, a client of the groups it calls and not the whole API", () => {
    const built = Path.join(repoRoot, "dist/server/console")
    const size = JSON.parse(Fs.readFileSync(Path.join(built, "size.json"), "utf8")) as { gzippedBytes: number }
    assert.isAtMost(size.gzippedBytes, 300_000)
    // the source map names what the bundle holds: the groups of console/api.ts, not PlatformApi's aggregate
    const map = Fs.readdirSync(Path.join(built, "assets")).find((name) => /^main-.*\.js\.map$/.test(name))!
    const sources = (JSON.parse(Fs.readFileSync(Path.join(built, "assets", map), "utf8")) as { sources: Array<string> }).sources
    const groups = sources.filter((source) => source.includes("packages/api/src/")).map((source) => Path.basename(source))
    assert.includeMembers(groups, ["UsersApi.ts", "ModelsApi.ts", "KnowledgeBasesApi.ts"])
    assert.notInclude(groups, "Api.ts")
    assert.notInclude(groups, "SpansApi.ts")
  })

  it("signs in, switches accounts, shows the registry, streams in the playground, themes, signs out", async () => {
    const started = Date.now()
    const [upstream, browser] = await Promise.all([slowUpstream(), launchBrowser()])
    // a deployment to provision takes one simulated step: a short one
    const server = await startServer({ databaseUrl: "sqlite::memory:", env: { PLATFORM_STEP_SECONDS: "1" } })
    const base = `http://127.0.0.1:${server.port}`
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { "x-api-key": serverKey, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      assert.isTrue(response.ok, `${method} ${path}: ${response.status} ${await response.clone().text()}`)
      return (await response.json()) as any
    }
    try {
      // what the pages show: a model with a deployment on the built-in model and one on the slow upstream
      const model = await api("POST", "/v4/models", { name: "echo", model_type: "CHAT_COMPLETION", account_id: serverAccount })
      const local = await api("POST", `/v4/models/${model.id}/deployments`, { name: "local", model_creation_parameters: { provider: "builtin" } })
      const slow = await api("POST", `/v4/models/${model.id}/deployments`, {
        name: "slow",
        model_creation_parameters: { provider: "openai_compatible", base_url: upstream.url, model: "slow" }
      })
      const research = await api("POST", "/accounts", { account_name: "Research" })
      // an application: the recipe's completion app on the built-in model (docs/applications.md)
      const spec = await api("POST", "/v4/application-specs", { name: "helpdesk", description: "answers", account_id: serverAccount })
      const variant = await api("POST", "/v4/application-variants", {
        name: "v0",
        version: "V0",
        application_spec_id: spec.id,
        account_id: serverAccount,
        configuration: {
          nodes: [
            { id: "input_node", application_node_schema_id: "text_input_schema" },
            { id: "completion_node", application_node_schema_id: "completion_model_schema", configuration: { completion_model_id: { value: "builtin" } } },
            { id: "output_node", application_node_schema_id: "text_output_schema" }
          ],
          edges: [
            { from_node: "input_node", from_field: "input-text", to_node: "completion_node", to_field: "prompt" },
            { from_node: "completion_node", from_field: "completion", to_node: "output_node", to_field: "output-text" }
          ]
        }
      })
      await until("the deployments to be READY", async () =>
        (await api("GET", `/v4/models/${model.id}/deployments`)).items.every((d: { status: string }) => d.status === "READY"))

      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light" })
      const page = await context.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(`page error: ${error.message}`))
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(`console: ${message.text()}`)
      })
      const requested: Array<string> = []
      page.on("request", (request) => requested.push(request.url()))
      const checkPage = async (name: string, options: { readonly fullPage?: boolean } = {}) => {
        assert.deepStrictEqual(await axeViolations(page), [], `axe on ${name}`)
        await page.screenshot({ path: Path.join(screenshots, `${name}.png`), fullPage: options.fullPage === true })
      }

      // the sign-in form; a wrong key shows the API's detail
      await page.goto(`${base}/console`)
      await page.getByLabel("API key").fill("pk_not_a_key")
      await page.getByRole("button", { name: "Sign in" }).click()
      const refused = await page.getByRole("alert").textContent()
      assert.match(refused ?? "", /Invalid API key|API key/i)
      // the browser logs the 401 it was answered: expected, and the only error allowed
      assert.isTrue(errors.every((error) => /status of 401/.test(error)), errors.join("\n"))
      errors.length = 0
      await page.getByLabel("API key").fill(serverKey)
      await checkPage("sign-in")
      await page.getByRole("button", { name: "Sign in" }).click()

      // the models page of the first account, the switcher listing both
      await page.waitForURL(`${base}/console/models`)
      const switcher = page.getByLabel("Account")
      assert.deepStrictEqual((await switcher.locator("option").allTextContents()).length, 2)
      await switcher.selectOption(serverAccount)
      await page.getByRole("link", { name: "echo" }).waitFor()
      assert.strictEqual(await page.getByRole("link", { name: "Models", exact: true }).getAttribute("aria-current"), "page")
      await checkPage("models")
      // the other account has no model: the empty state, then back
      await switcher.selectOption(research.account_id)
      await page.getByText("No models in this account yet").waitFor()
      await switcher.selectOption(serverAccount)

      // a model and its deployments with their states; one being provisioned is seen moving to READY
      const launch = await api("POST", `/v4/models/${model.id}/deployments`, { name: "launch", account_id: serverAccount })
      assert.strictEqual(launch.status, "PENDING")
      await page.getByRole("link", { name: "echo" }).click()
      await page.waitForURL(`${base}/console/models/${model.id}`)
      const state = (name: string) => page.locator("tbody tr", { hasText: name }).locator(".badge")
      await state("launch").waitFor()
      assert.sameMembers(await page.locator("tbody tr td:first-child").allTextContents(), ["local", "slow", "launch"])
      assert.strictEqual(await state("launch").textContent(), "PENDING")
      assert.strictEqual(await state("slow").textContent(), "READY")
      await checkPage("model")
      await page.locator("tbody tr", { hasText: "launch" }).getByText("READY").waitFor({ timeout: 8_000 })

      // the playground, opened on the slow deployment from its row: the reply grows as it streams
      await page.getByRole("link", { name: "Open in playground: slow" }).click()
      await page.waitForURL(`${base}/console/playground?model=${slow.id}`)
      const choice = page.getByLabel("Model")
      await choice.locator(`option[value="${slow.id}"]`).waitFor({ state: "attached" })
      assert.strictEqual(await choice.inputValue(), slow.id)
      assert.strictEqual(await page.getByRole("link", { name: "Playground", exact: true }).getAttribute("aria-current"), "page")
      await page.getByLabel("Message").fill("Tell me something long.")
      await page.getByRole("button", { name: "Send" }).click()
      const reply = page.getByTestId("reply")
      await reply.waitFor()
      const lengths: Array<number> = []
      while (lengths.length < 400 && (await reply.count()) === 1) {
        const text = await reply.textContent({ timeout: 200 }).catch(() => undefined)
        if (text === undefined) break
        lengths.push((text ?? "").replace("▍", "").length)
        await new Promise((resolve) => setTimeout(resolve, 40))
      }
      const growing = [...new Set(lengths)].filter((length) => length > 0)
      assert.isAtLeast(growing.length, 5, `the reply's lengths as seen: ${lengths.join(",")}`)
      assert.deepStrictEqual(growing, [...growing].sort((a, b) => a - b))
      const answers = page.locator(".message.assistant:not(.streaming) p")
      assert.strictEqual(await answers.last().textContent(), pieces.join(""))
      await checkPage("playground")

      // Stop: the partial reply is kept, and the server closes its upstream's stream
      await page.getByLabel("Message").fill("Again, but I will stop you.")
      await page.getByRole("button", { name: "Send" }).click()
      await until("a few pieces", async () => ((await reply.textContent().catch(() => "")) ?? "").length > 20)
      await page.getByRole("button", { name: "Stop" }).click()
      await page.getByRole("button", { name: "Send" }).waitFor()
      await until("the partial reply kept", async () => (await answers.count()) === 2)
      const partial = (await answers.last().textContent()) ?? ""
      assert.isTrue(partial.length > 0 && partial.length < pieces.join("").length, partial)
      await until("the upstream's stream closed", async () => upstream.closedEarly() === 1)

      // the built-in model (zero set-up), in the dark theme
      await page.getByRole("button", { name: "Clear chat" }).click()
      await choice.selectOption("builtin")
      await page.getByLabel("Message").fill("one two three")
      await page.getByRole("button", { name: "Send" }).click()
      await until("the built-in model's reply", async () => (await answers.count()) === 1)
      assert.strictEqual(await answers.last().textContent(), "one two three")
      const dark = page.getByRole("button", { name: "Dark theme" })
      assert.strictEqual(await dark.getAttribute("aria-pressed"), "false")
      await dark.click()
      await until("the dark theme", async () => (await page.evaluate(() => document.documentElement.dataset.theme)) === "dark")
      assert.strictEqual(await dark.getAttribute("aria-pressed"), "true")
      await checkPage("playground-dark")

      // a narrow window: the navigation above the content, nothing wider than the window
      await page.setViewportSize({ width: 400, height: 800 })
      await page.getByRole("link", { name: "Models", exact: true }).click()
      await page.getByRole("link", { name: "echo" }).waitFor()
      assert.isAtMost(await page.evaluate(() => document.documentElement.scrollWidth), 400)
      // the navigation right under the header, the page's title right under it
      const title = await page.getByRole("heading", { name: "Models" }).boundingBox()
      assert.isAtMost(title!.y, 300)
      await checkPage("models-narrow")
      // the theme is the browser's choice, kept across pages; back to light
      await dark.click()
      await until("the light theme", async () => (await page.evaluate(() => document.documentElement.dataset.theme)) === "light")

      // the key was in no URL the page asked for, and a reload keeps the session (this tab's storage)
      assert.isTrue(requested.every((url) => !url.includes(serverKey)))
      await page.setViewportSize({ width: 1280, height: 800 })
      await page.reload()
      await page.getByRole("link", { name: "echo" }).waitFor()

      // keyboard: the skip link first, then the header's controls and the navigation, followed with Enter
      const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim())
      await page.keyboard.press("Tab")
      assert.strictEqual(await focused(), "Skip to content")
      for (let i = 0; i < 6 && (await focused()) !== "Playground"; i++) await page.keyboard.press("Tab")
      assert.strictEqual(await focused(), "Playground")
      await page.keyboard.press("Enter")
      await page.waitForURL(`${base}/console/playground`)
      await until("the page's content focused", async () => (await page.evaluate(() => document.activeElement?.id)) === "content")

      // knowledge bases (zero set-up: the built-in embeddings): the empty state, a base created, a file
      // uploaded and seen ingesting to `Completed`, then a query showing its chunks with their scores
      const kbStarted = Date.now()
      await page.getByRole("link", { name: "Knowledge bases", exact: true }).click()
      await page.getByText("No knowledge bases in this account yet").waitFor()
      await page.getByLabel("Name").fill("harbor")
      await page.getByRole("button", { name: "Create" }).click()
      await page.getByRole("heading", { name: "harbor" }).waitFor()
      const kbId = /\/console\/knowledge-bases\/([^/]+)$/.exec(page.url())?.[1]
      assert.isDefined(kbId, page.url())
      await page.getByText("No uploads yet").waitFor()
      await page.getByLabel("Files").setInputFiles({
        name: "harbor.md",
        mimeType: "text/markdown",
        buffer: Buffer.from("The harbor opens at dawn.\n\nCopper lanterns line the pier.")
      })
      await page.getByLabel("Chunk size (characters)").fill("30")
      await page.getByRole("button", { name: "Upload" }).click()
      const ingestion = page.locator(".card", { has: page.getByRole("heading", { name: "Ingestion" }) })
      await ingestion.locator("tbody tr", { hasText: "harbor.md" }).getByText("Completed").waitFor({ timeout: 8_000 })
      assert.strictEqual(await ingestion.locator("tbody tr", { hasText: "harbor.md" }).locator("td").nth(2).textContent(), "2")
      assert.match((await ingestion.getByRole("status").textContent()) ?? "", /Completed/)
      // the list of uploads, loaded again while the upload ran, ends `Completed` too
      await page.locator("table", { has: page.locator("caption", { hasText: "Uploads of the knowledge base" }) })
        .getByText("Completed", { exact: true }).waitFor({ timeout: 8_000 })
      await page.getByLabel("Query", { exact: true }).fill("When does the harbor open?")
      await page.getByRole("button", { name: "Search" }).click()
      const found = page.getByRole("list", { name: "Chunks found" }).locator("li")
      await found.first().waitFor()
      assert.strictEqual(await found.count(), 2)
      assert.include(await found.first().textContent(), "The harbor opens at dawn.")
      assert.match((await found.first().locator(".score").textContent()) ?? "", /^score [01]\.\d{3}$/)
      assert.include(await found.first().textContent(), "harbor.md")
      await checkPage("knowledge-base", { fullPage: true })
      // a narrow window: the forms and the chunks fold, nothing wider than the window
      await page.setViewportSize({ width: 400, height: 800 })
      assert.isAtMost(await page.evaluate(() => document.documentElement.scrollWidth), 400)
      await page.setViewportSize({ width: 1280, height: 800 })
      await page.getByRole("link", { name: "← Knowledge bases" }).click()
      await page.getByRole("link", { name: "harbor" }).waitFor()
      await checkPage("knowledge-bases")
      const kbMs = Date.now() - kbStarted

      // applications: the spec, its variant, the variant's graph drawn, a run's output and its trace
      const appsStarted = Date.now()
      await page.getByRole("link", { name: "Applications", exact: true }).click()
      await page.getByRole("link", { name: "helpdesk" }).click()
      await page.getByRole("link", { name: "v0" }).click()
      await page.waitForURL(`${base}/console/applications/${spec.id}/variants/${variant.id}`)
      await page.getByRole("img", { name: "Graph of v0: 3 nodes, 2 edges" }).waitFor()
      assert.sameMembers(await page.locator(".graph .node-id").allTextContents(), ["input_node", "completion_node", "output_node"])
      await page.getByLabel("Input input_node: Text").fill("Hello there")
      await page.getByRole("button", { name: "Run" }).click()
      await page.getByTestId("output").waitFor()
      // the built-in model echoes its prompt
      assert.strictEqual(await page.getByTestId("output").textContent(), "Hello there")
      const trace = page.locator("table.trace tbody tr")
      await trace.first().waitFor()
      assert.sameMembers(await trace.locator("td:first-child").allTextContents(), ["input_node", "completion_node", "output_node"])
      await checkPage("application", { fullPage: true })
      const appsMs = Date.now() - appsStarted

      // sign out: the key is forgotten, a reload shows the sign-in form
      await page.getByRole("button", { name: "Sign out" }).click()
      await page.getByLabel("API key").waitFor()
      assert.deepStrictEqual(await page.evaluate(() => Object.keys(sessionStorage)), [])
      await page.reload()
      await page.getByLabel("API key").waitFor()

      assert.deepStrictEqual(errors, [])
      // the deployment `local` is listed but this test chats with the others: still READY, untouched
      assert.strictEqual((await api("GET", `/v4/model-deployments/${local.id}`)).status, "READY")
      console.log(`console browser test: ${Date.now() - started} ms (knowledge bases: ${kbMs} ms, applications: ${appsMs} ms)`)
    } finally {
      await Promise.all([browser.close(), server.stop(), upstream.close()])
    }
  }, 60_000)
})
