/**
 * Headless Chromium for the tests that need a real browser: Debian's `chromium` package
 * (`/usr/bin/chromium`, installed by `.ci/run`; `apt-get install chromium` on a machine of your
 * own), driven by `playwright-core` (which downloads no browser of its own).
 */
import * as Fs from "node:fs"
import * as Http from "node:http"
import { type Browser, chromium } from "playwright-core"

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/**
 * Launches headless Chromium (a fresh profile of playwright's own). The flags keep it off the
 * network it would call by itself at start (updates, sync, Google's hosts), which a closed machine
 * refuses.
 */
export const launchBrowser = async (): Promise<Browser> => {
  if (!Fs.existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath}: install Debian's package (apt-get install chromium) or set CHROMIUM_PATH`)
  }
  return chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
}

/** A server of one empty HTML page on `host` and a free port: the origin a test's page runs on. */
export const pageServer = async (host: string): Promise<{ readonly origin: string; readonly close: () => Promise<void> }> => {
  const server = Http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end("<!doctype html><title>a page of another origin</title>")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return {
    origin: `http://${host}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}
