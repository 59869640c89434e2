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
import { completionApp } from "../support/applications.js"
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
    // a family no page lists (the lifecycles page lists fine-tuning jobs)
    assert.notInclude(groups, "TrainingDatasetsApi.ts")
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
      // the lifecycles page lists the uploads of the account's knowledge bases (the parent's name a column)
      await page.getByRole("link", { name: "Lifecycles", exact: true }).click()
      await page.getByRole("table", { name: "Knowledge base uploads" }).locator("tbody tr", { hasText: "harbor" })
        .getByText("Completed", { exact: true }).waitFor({ timeout: 8_000 })
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

  it("opens a trace as a waterfall, watches a task's live stream, advances a lifecycle from the control plane", async () => {
    const started = Date.now()
    // the control plane on, and simulated steps parked until advanced
    const [browser, server] = await Promise.all([
      launchBrowser(),
      startServer({ databaseUrl: "sqlite::memory:", env: { PLATFORM_ADMIN_KEY: "admin-secret", PLATFORM_PROGRESSION: "manual" } })
    ])
    const launched = Date.now() - started
    const base = `http://127.0.0.1:${server.port}`
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { "x-api-key": serverKey, "x-admin-key": "admin-secret", "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      assert.isTrue(response.ok, `${method} ${path}: ${response.status} ${await response.clone().text()}`)
      return (await response.json()) as any
    }
    try {
      // the target: 10,000 spans stored (ten older traces of 1,000: a root and its children),
      // sent while the rest is made and the browser signs in
      const bulk = (async () => {
        for (let trace = 0; trace < 10; trace++) {
          const at = (i: number) => new Date(Date.UTC(2026, 0, 1 + trace, 12, 0, 0, i)).toISOString()
          await api("PUT", "/v5/spans/batch", {
            items: Array.from({ length: 1_000 }, (_, i) => ({
              id: `bulk-${trace}-${i}`,
              trace_id: `bulk-trace-${trace}`,
              name: i === 0 ? "bulk.root" : "bulk.child",
              type: "CUSTOM",
              status: "SUCCESS",
              start_timestamp: at(i),
              end_timestamp: at(i === 0 ? 999 : i + 1),
              ...(i === 0 ? {} : { parent_id: `bulk-${trace}-0` }),
              input: { i }
            }))
          })
        }
      })()
      // awaited before the traces page; a failure before then is the test's own
      bulk.catch(() => undefined)
      // a trace made by the kit's own work (zero set-up): an application's run on the built-in model
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
      await api("POST", `/v4/applications/${variant.id}/process`, { inputs: { input_node: { "input-text": "Where is the harbor?" } } })
      // the spans are written within 250 ms of their end
      await until("the run's spans stored", async () =>
        (await api("POST", "/v5/spans/search", { names: ["model.execution"] })).items.length === 1)
      // an agent (its ACP server is never called here) and a task made through its RPC, from the console
      const agent = await api("POST", "/agents/register", { name: "echo", description: "Echoes", acp_url: "http://127.0.0.1:9", acp_type: "sync" })
      // a deployment to provision: its step parks (manual progression)
      const model = await api("POST", "/v4/models", { name: "echo", model_type: "CHAT_COMPLETION", account_id: serverAccount })
      const launch = await api("POST", `/v4/models/${model.id}/deployments`, { name: "launch", account_id: serverAccount })
      // and an application deployment of the variant (another family of the lifecycles page): its step parks too
      const served = await api("POST", "/v4/application-deployments", {
        name: "helpdesk-live",
        endpoint: "helpdesk",
        application_variant_id: variant.id,
        is_active: true,
        account_id: serverAccount
      })
      await until("the provisioning steps parked", async () => {
        const parked = (await api("GET", "/admin/parked-steps")).map((step: { id: string }) => step.id)
        return parked.includes(launch.id) && parked.includes(served.id)
      })
      const prepared = Date.now() - started

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
      await page.goto(`${base}/console`)
      await page.getByLabel("API key").fill(serverKey)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.waitForURL(`${base}/console/models`)

      // traces: the roots found, the run's trace opened as a waterfall, a span's input and output
      await bulk
      const bulkMs = Date.now() - started
      const tracesStarted = Date.now()
      await page.getByRole("link", { name: "Traces", exact: true }).click()
      await page.getByRole("link", { name: "application.process" }).waitFor()
      const listMs = Date.now() - tracesStarted
      // the roots only, a page of them: the run's, then the ten older traces
      assert.strictEqual(await page.locator("tbody tr").count(), 11)
      // a filter (a name, children too) and the keyset pages: Older, then Newer back to the first page
      await page.getByLabel("Name").fill("bulk.child")
      await page.getByLabel("Roots only").uncheck()
      await page.getByRole("button", { name: "Search" }).click()
      const firstCell = { textContent: () => page.locator("tbody tr a").first().getAttribute("href") }
      await until("the children listed", async () => (await page.locator("tbody tr", { hasText: "bulk.child" }).count()) === 25)
      const newest = await firstCell.textContent()
      assert.isTrue(await page.getByRole("button", { name: "Newer" }).isDisabled())
      await page.getByRole("button", { name: "Older" }).click()
      await until("the next page", async () => (await firstCell.textContent()) !== newest)
      await page.getByRole("button", { name: "Newer" }).click()
      await until("the first page again", async () => (await firstCell.textContent()) === newest)
      assert.isTrue(await page.getByRole("button", { name: "Newer" }).isDisabled())
      await page.getByLabel("Name").fill("")
      await page.getByLabel("Roots only").check()
      await page.getByRole("button", { name: "Search" }).click()
      await until("the roots again", async () => (await page.locator("tbody tr").count()) === 11)
      // a trace of 1,000 spans opens as a waterfall within the target too
      const opening = Date.now()
      await page.getByRole("link", { name: "bulk.root" }).first().click()
      await page.getByText("1000 spans,").waitFor()
      const bigTraceMs = Date.now() - opening
      assert.strictEqual(await page.locator(".span-row").count(), 1_000)
      assert.isAtMost(listMs, 1_000)
      assert.isAtMost(bigTraceMs, 1_000)
      await page.getByRole("link", { name: "← Traces" }).click()
      await page.getByRole("link", { name: "application.process" }).click()
      const rows = page.getByRole("list", { name: /Spans of the trace/ }).locator(".span-name")
      await rows.first().waitFor()
      const names = (await rows.allTextContents()).map((name) => name.trim())
      assert.deepStrictEqual(names.slice(0, 1), ["application.process"])
      assert.sameMembers(names, ["application.process", "application.node", "application.node", "model.execution", "application.node"])
      // nested by parent: the model's execution is indented under its node, under the process
      const indent = async (index: number) => Number((await rows.nth(index).getAttribute("data-depth")) ?? "NaN")
      const execution = names.indexOf("model.execution")
      assert.isAbove(await indent(execution), await indent(execution - 1))
      assert.isAbove(await indent(1), await indent(0))
      const details = page.getByTestId("span-details")
      assert.include(await details.textContent(), "Where is the harbor?")
      await checkPage("trace", { fullPage: true })
      await page.locator(".span-row", { hasText: "model.execution" }).click()
      await details.getByRole("heading", { name: "model.execution" }).waitFor()
      assert.strictEqual(await page.locator(".span-row", { hasText: "model.execution" }).getAttribute("aria-pressed"), "true")
      // a narrow window: the waterfall's bars go under the names, nothing wider than the window
      await page.setViewportSize({ width: 400, height: 800 })
      assert.isAtMost(await page.evaluate(() => document.documentElement.scrollWidth), 400)
      await page.setViewportSize({ width: 1280, height: 800 })
      await page.getByRole("link", { name: "← Traces" }).click()
      await page.getByRole("link", { name: "application.process" }).waitFor()
      await checkPage("traces")
      const tracesMs = Date.now() - tracesStarted

      // agents and tasks: the agent, a task made from its page, messages arriving on the task's live stream
      const agentsStarted = Date.now()
      await page.getByRole("link", { name: "Agents and tasks", exact: true }).click()
      await page.getByRole("link", { name: "echo" }).click()
      await page.getByText("No tasks of this agent yet").waitFor()
      await page.getByLabel("Task name (optional)").fill("ticket-1")
      await page.getByRole("button", { name: "New task" }).click()
      await page.waitForURL(/\/console\/agents\/tasks\/[^/]+$/)
      const taskId = decodeURIComponent(/\/agents\/tasks\/([^/]+)$/.exec(page.url())![1]!)
      await page.getByText("Live: new messages appear as they arrive").waitFor()
      assert.strictEqual(await page.getByTestId("task-status").textContent(), "RUNNING")
      // written by another client (the agent calling back): seen without a reload
      await api("POST", "/messages", { task_id: taskId, content: { type: "text", author: "agent", content: "Hello from the agent" } })
      const said = page.getByRole("list", { name: "Messages of the task" }).locator("li.message p")
      await page.getByText("Hello from the agent").waitFor()
      // written from the console: it comes back through the stream
      await page.getByLabel("Message to the task").fill("Thanks!")
      await page.getByRole("button", { name: "Add message" }).click()
      await until("the console's message on the stream", async () => (await said.count()) === 2)
      assert.deepStrictEqual(await said.allTextContents(), ["Hello from the agent", "Thanks!"])
      // the task completed elsewhere: its status moves and the stream ends
      await api("POST", `/tasks/${taskId}/complete`, { reason: "answered" })
      await page.getByText("The stream has ended").waitFor()
      assert.strictEqual(await page.getByTestId("task-status").textContent(), "COMPLETED")
      await checkPage("task")
      await page.setViewportSize({ width: 400, height: 800 })
      assert.isAtMost(await page.evaluate(() => document.documentElement.scrollWidth), 400)
      await page.setViewportSize({ width: 1280, height: 800 })
      await page.getByRole("link", { name: "← Agents" }).click()
      await page.getByRole("link", { name: "echo" }).waitFor()
      // an agent registered from the form is listed
      await page.getByLabel("Name (lower-case letters, digits, dashes)").fill("reviewer")
      await page.getByRole("button", { name: "Register" }).click()
      await page.getByRole("link", { name: "reviewer" }).waitFor()
      await checkPage("agents")
      assert.strictEqual(agent.name, "echo")
      const agentsMs = Date.now() - agentsStarted

      // lifecycles: the deployment PENDING, the control plane opened with the admin key, its parked step
      // advanced from the page, and the deployment seen READY without a reload
      const lifecyclesStarted = Date.now()
      await page.getByRole("link", { name: "Lifecycles", exact: true }).click()
      const deployment = page.getByRole("table", { name: "Model deployments" }).locator("tbody tr", { hasText: "launch" })
      await deployment.getByText("PENDING").waitFor()
      assert.include(await page.getByRole("table", { name: "Agent tasks" }).textContent(), "COMPLETED")
      await page.getByLabel("Admin key").fill("admin-secret")
      await page.getByRole("button", { name: "Open" }).click()
      assert.strictEqual(await page.getByTestId("progression").textContent(), "manual")
      await page.getByRole("button", { name: `Advance provision of ${launch.id}` }).click()
      await deployment.getByText("READY").waitFor({ timeout: 8_000 })
      // another family moving on the same page: the application deployment, PENDING, then READY once advanced
      const applicationDeployment = page.getByRole("table", { name: "Application deployments" }).locator("tbody tr", { hasText: "helpdesk-live" })
      await applicationDeployment.getByText("PENDING").waitFor()
      await page.getByRole("button", { name: `Advance provision of ${served.id}` }).click()
      await applicationDeployment.getByText("READY").waitFor({ timeout: 8_000 })
      await page.getByText("No step is parked").waitFor({ timeout: 8_000 })
      // the admin key is in this tab's storage only, and sign out forgets it with the API key
      assert.isTrue(requested.every((url) => !url.includes("admin-secret")))
      await checkPage("lifecycles", { fullPage: true })
      await page.getByRole("button", { name: "Sign out" }).click()
      await page.getByLabel("API key").waitFor()
      assert.deepStrictEqual(await page.evaluate(() => Object.keys(sessionStorage)), [])
      const lifecyclesMs = Date.now() - lifecyclesStarted

      assert.deepStrictEqual(errors, [])
      console.log(
        `console traces, tasks and lifecycles: ${Date.now() - started} ms (server and browser started: ${launched} ms, data made: ${prepared} ms, 10,000 spans stored: ${bulkMs} ms; spans listed among 10,000: ${listMs} ms, a trace of 1,000 opened: ${bigTraceMs} ms; traces: ${tracesMs} ms, agents and tasks: ${agentsMs} ms, lifecycles: ${lifecyclesMs} ms)`
      )
    } finally {
      await Promise.all([browser.close(), server.stop()])
    }
  }, 30_000)
})

/**
 * The evaluations' pages (v5, v4 with annotation, dashboards) on a fresh server of their own: the built-in model and
 * judge, nothing set up. Screenshots: evaluations, evaluation, dashboard, annotation, evaluation-v4 (and narrow-dark).
 */
describe("the console's evaluations in a browser", () => {
  it("runs a v5 evaluation and shows its results and chart, a dashboard recomputed; claims, answers and claims again on a v4 evaluation", async () => {
    const started = Date.now()
    const [browser, server] = await Promise.all([launchBrowser(), startServer({ databaseUrl: "sqlite::memory:" })])
    const startMs = Date.now() - started
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
      // a v4 builder evaluation (the recipe's, docs/evaluations.md): the completion app on the built-in model over two
      // test cases, a categorical question judged by the built-in judge and annotated by people
      const account = serverAccount
      const spec = await api("POST", "/v4/application-specs", { name: "faq bot", description: "answers", account_id: account })
      const variant = await api("POST", "/v4/application-variants", {
        name: "echo", version: "V0", application_spec_id: spec.id, account_id: account, configuration: completionApp()
      })
      const dataset = await api("POST", "/v4/evaluation-datasets", { name: "capitals", schema_type: "GENERATION", account_id: account })
      await api("POST", `/v4/evaluation-datasets/${dataset.id}/test-cases/batch`, [
        { test_case_data: { input: "What is the capital of France?", expected_output: "Paris" } },
        { test_case_data: { input: "Name the capital of Italy", expected_output: "Rome" } }
      ])
      await api("POST", `/v4/evaluation-datasets/${dataset.id}/publish`)
      const question = await api("POST", "/v4/questions", {
        account_id: account, type: "categorical", title: "Correct?", prompt: "Is the output correct?",
        choices: [{ label: "Yes", value: "yes" }, { label: "No", value: "no" }]
      })
      const set = await api("POST", "/v4/question-sets", { account_id: account, name: "review", question_ids: [question.id] })
      const config = await api("POST", "/v4/evaluation-configs", { account_id: account, evaluation_type: "llm_benchmark", question_set_id: set.id })
      const v4 = await api("POST", "/v4/evaluations", {
        account_id: account, type: "builder", name: "capitals judged", description: "echo, judged", application_spec_id: spec.id,
        application_variant_id: variant.id, evaluation_dataset_id: dataset.id, evaluation_config_id: config.id
      })

      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light" })
      const page = await context.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(`page error: ${error.message}`))
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(`console: ${message.text()}`)
      })
      const checkPage = async (name: string) => {
        assert.deepStrictEqual(await axeViolations(page), [], `axe on ${name}`)
        await page.screenshot({ path: Path.join(screenshots, `${name}.png`), fullPage: true })
      }
      await page.goto(`${base}/console`)
      await page.getByLabel("API key").fill(serverKey)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.waitForURL(`${base}/console/models`)

      // v5: the empty list, an evaluation of three items run from the form (its example items, an f1 metric), its
      // status seen `completed`, the items with their scores (SQuAD's F1: "the city of Lyon" against "Lyon" is 0.5), the
      // scores' histogram
      const v5Started = Date.now()
      await page.getByRole("link", { name: "Evaluations", exact: true }).click()
      await page.getByText("No evaluations in this account yet").waitFor()
      await page.getByLabel("Name").fill("capitals")
      await page.getByRole("button", { name: "Run" }).click()
      await page.getByRole("heading", { name: "capitals" }).waitFor()
      const evaluationId = /\/console\/evaluations\/([^/]+)$/.exec(page.url())?.[1]
      assert.isDefined(evaluationId, page.url())
      await page.getByRole("status").getByText("completed").waitFor({ timeout: 8_000 })
      const rows = page.locator("table.items tbody tr")
      await until("the items scored", async () => (await rows.count()) === 3 && (await rows.locator(".badge", { hasText: "scored" }).count()) === 3)
      assert.deepStrictEqual(await rows.locator("td.result").allTextContents(), ["1", "0", "0.500"])
      const chart = page.getByRole("img", { name: /^Scores of f1/ })
      await chart.waitFor()
      assert.include(await page.locator("figcaption", { hasText: "Scores of f1" }).textContent(), "3 scored, mean 0.500")
      // the filter: the page's items in one state
      await page.getByLabel("Show").selectOption("failed")
      await page.getByText("No item of this page is in that state.").waitFor()
      await page.getByLabel("Show").selectOption("all")
      await checkPage("evaluation")
      await page.getByRole("link", { name: "← Evaluations" }).click()
      await page.getByRole("link", { name: "capitals" }).waitFor()
      await checkPage("evaluations")
      const v5Ms = Date.now() - v5Started

      // the target: an evaluation of 10,000 items (no task: completed at once) opens within 1 s, its first
      // page of items shown (the lists are paged; the charts read the first 1,000 items)
      const big = await api("POST", "/v5/evaluations", {
        name: "ten thousand",
        data: Array.from({ length: 10_000 }, (_, i) => ({ question: `question ${i}`, score: (i % 100) / 100 }))
      })
      await page.reload()
      await page.getByRole("link", { name: "ten thousand" }).waitFor()
      const opening = Date.now()
      await page.getByRole("link", { name: "ten thousand" }).click()
      await page.locator("table.items tbody tr").first().waitFor()
      const bigMs = Date.now() - opening
      assert.strictEqual(await page.locator("table.items tbody tr").count(), 20)
      await page.getByText("Page 1 (10000 in all)").waitFor()
      assert.isAtMost(bigMs, 1_000)
      assert.strictEqual(big.progress.items.total, 10_000)
      await page.getByRole("link", { name: "← Evaluations" }).click()

      // a dashboard on that evaluation (made through the API): the mean as a figure, the mean by expected answer as bars;
      // Recompute asks for a widget's computation again, and its new result lands on the page
      const dashboardStarted = Date.now()
      const mean = { type: "AGGREGATE", function: "AVG", column: "f1" }
      const dashboard = await api("POST", "/v5/evaluation-dashboards", {
        name: "capitals board",
        evaluation_id: evaluationId,
        widgets: [
          { title: "Mean f1", type: "metric", query: { select: [{ expression: mean, alias: "mean" }] } },
          {
            title: "f1 by expected answer",
            type: "bar",
            query: {
              select: [{ expression: { type: "COLUMN", column: "expected", source: "data" }, alias: "expected" }, { expression: mean, alias: "f1" }],
              groupBy: ["expected"]
            }
          }
        ]
      })
      await page.getByRole("link", { name: "Dashboards", exact: true }).click()
      await page.getByRole("link", { name: "capitals board" }).click()
      await page.getByRole("heading", { name: "capitals board" }).waitFor()
      await until("the mean computed", async () => (await page.getByTestId("metric").textContent().catch(() => "")) === "0.500")
      await page.getByRole("img", { name: "f1 by expected answer: Paris: 1, Rome: 0, Lyon: 0.500" }).waitFor()
      const jobOf = async () => (await api("GET", `/v5/evaluation-dashboards/${dashboard.id}`)).widget_results[0].computation_job_id
      const firstJob = await jobOf()
      await page.getByRole("button", { name: "Recompute Mean f1" }).click()
      await until("a new computation", async () => (await jobOf()) !== firstJob)
      // the page shows the new computation's result once it has landed
      const widget = page.getByRole("listitem", { name: "Widget Mean f1" })
      const secondJob = await jobOf()
      await until("the new result shown", async () =>
        (await widget.getAttribute("data-computation")) === secondJob && (await widget.locator(".badge").textContent()) === "completed")
      assert.strictEqual(await page.getByTestId("metric").textContent(), "0.500")
      await checkPage("dashboard")
      const dashboardMs = Date.now() - dashboardStarted

      // v4: the list, the evaluation's jobs watched to their end, then a round of annotation: claim, answer, claim the next,
      // answer, and the next claim has nothing to do
      const v4Started = Date.now()
      await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "v4 evaluations" }).click()
      await page.getByRole("link", { name: "capitals judged" }).click()
      await page.waitForURL(`${base}/console/evaluations-v4/${v4.id}`)
      const claim = page.getByRole("button", { name: "Claim the next task" })
      await claim.waitFor({ timeout: 10_000 })
      assert.isAtLeast(await page.locator("table", { has: page.locator("caption", { hasText: "Async jobs" }) }).locator("tbody tr").count(), 1)
      await claim.click()
      const task = page.getByTestId("task")
      await task.waitFor()
      const first = (await task.textContent()) ?? ""
      assert.match(first, /capital of (France|Italy)/)
      await page.getByRole("radio", { name: "Yes" }).check()
      await checkPage("annotation")
      await page.getByRole("button", { name: "Send answers" }).click()
      // the next task is claimed: the other test case
      await until("the next task", async () => ((await task.textContent().catch(() => "")) ?? "").length > 0 && (await task.textContent()) !== first)
      assert.match((await task.textContent()) ?? "", /capital of (France|Italy)/)
      await page.getByRole("radio", { name: "No" }).check()
      await page.getByRole("button", { name: "Send answers" }).click()
      await page.getByTestId("nothing-to-do").waitFor()
      await page.getByText("2 answered in this session").waitFor()
      // both answers stored: the results show the person's answers, the metrics count two labelled
      const results = page.locator("table", { has: page.locator("caption", { hasText: "Test case results" }) })
      await until("both results completed", async () => (await results.locator(".badge", { hasText: "COMPLETED" }).count()) === 2)
      assert.strictEqual(await results.getByText(/person: (Yes|No)/).count(), 2)
      await page.getByRole("img", { name: /Test case results: All: 2, Labelled: 2/ }).waitFor()
      assert.strictEqual((await api("GET", `/v4/evaluations/${v4.id}/evaluation-metrics`)).num_test_cases_labeled, 2)
      await checkPage("evaluation-v4")
      // the dark theme (axe checks its contrasts too), and a narrow window: nothing wider than the window
      await page.getByRole("button", { name: "Dark theme" }).click()
      await until("the dark theme", async () => (await page.evaluate(() => document.documentElement.dataset.theme)) === "dark")
      await page.setViewportSize({ width: 400, height: 800 })
      // (the wide tables scroll inside the content; the layout settles a moment after the resize)
      await until("the narrow layout", async () => (await page.evaluate(() => document.documentElement.scrollWidth)) <= 400)
      await checkPage("evaluation-v4-narrow-dark")
      const v4Ms = Date.now() - v4Started

      assert.deepStrictEqual(errors, [])
      console.log(`console evaluations browser test: ${Date.now() - started} ms (browser and server started: ${startMs} ms, v5: ${v5Ms} ms, 10,000 items opened: ${bigMs} ms, dashboard: ${dashboardMs} ms, v4: ${v4Ms} ms)`)
    } finally {
      await Promise.all([browser.close(), server.stop()])
    }
  }, 60_000)
})
