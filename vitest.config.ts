import { defineConfig } from "vitest/config"

const project = (name: string, dir: string) => ({
  test: { name, include: [`${dir}/test/**/*.test.ts`], testTimeout: 30_000, hookTimeout: 30_000 }
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
