/**
 * Runs one of the package's programs (`admin/bin`, the admin CLI; `bin`, the standalone server).
 * The admin CLI runs from its bundle, `dist/cli/platform-kit.mjs` (one file: it answers in a
 * fraction of the time its hundreds of modules take to load, docs/operations.md "The admin CLI"),
 * which the package ships and a checkout of the repository builds when its sources changed.
 * Otherwise an installed package runs its built JavaScript (`dist/src/<entry>.js`, no TypeScript
 * tooling needed), and a checkout (a `tsconfig.json` beside this folder) the TypeScript sources
 * through tsx, with the repository's root tsconfig, whose `paths` send `@platform-kit/*` to the
 * other packages' sources too (docs/packages.md).
 */
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"

const packageDir = new URL("../", import.meta.url)

/** The CLI's bundle, built first in a checkout whose sources are newer (undefined if that fails). */
const cliBundle = async (checkout) => {
  const bundle = new URL("dist/cli/platform-kit.mjs", packageDir)
  if (checkout) {
    try {
      const build = await import(new URL("../../scripts/build.mjs", packageDir).href)
      if (!build.upToDate(build.cliDir, "platform-kit.mjs")) await build.buildCli()
    } catch {
      // the sources through tsx below report what is wrong with them
      return undefined
    }
  }
  return Fs.existsSync(bundle) ? bundle : undefined
}

export const launch = async (entry) => {
  const checkout = Fs.existsSync(new URL("tsconfig.json", packageDir))
  const bundle = entry === "admin/bin" ? await cliBundle(checkout) : undefined
  if (bundle !== undefined) {
    await import(bundle.href)
    return
  }
  if (!checkout) {
    await import(new URL(`dist/src/${entry}.js`, packageDir).href)
    return
  }
  const { register } = await import("tsx/esm/api")
  register({ tsconfig: fileURLToPath(new URL("../../tsconfig.json", packageDir)) })
  await import(new URL(`src/${entry}.ts`, packageDir).href)
}
