/**
 * Runs one of the package's programs (`admin/bin`, the admin CLI; `bin`, the standalone server).
 * An installed package runs its built JavaScript (`dist/src/<entry>.js`, no TypeScript tooling
 * needed). In a checkout of the repository (a `tsconfig.json` beside this folder) it runs the
 * TypeScript sources through tsx, with the repository's root tsconfig, whose `paths` send
 * `@platform-kit/*` to the other packages' sources too (docs/packages.md).
 */
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"

const packageDir = new URL("../", import.meta.url)

export const launch = async (entry) => {
  if (!Fs.existsSync(new URL("tsconfig.json", packageDir))) {
    await import(new URL(`dist/src/${entry}.js`, packageDir).href)
    return
  }
  const { register } = await import("tsx/esm/api")
  register({ tsconfig: fileURLToPath(new URL("../../tsconfig.json", packageDir)) })
  await import(new URL(`src/${entry}.ts`, packageDir).href)
}
