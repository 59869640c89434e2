import { defineConfig } from "vitest/config"

// tests build their own in-memory databases; nothing they start may write under ./data
const env = { DATABASE_URL: "sqlite::memory:" }

const project = (name: string, dir: string) => ({
  test: { name, include: [`${dir}/test/**/*.test.ts`], testTimeout: 30_000, hookTimeout: 30_000, env }
})

export default defineConfig({
  test: {
    projects: [
      project("schema", "packages/schema"),
      project("api", "packages/api"),
      project("server", "packages/server"),
      project("client", "packages/client"),
      project("examples", "examples")
    ]
  }
})
