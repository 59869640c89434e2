import { summarize, profileMarkdown } from "./profile.js"
import * as Fs from "node:fs"
const dir = process.argv[2] ?? "/tmp/kbprof/prof"
const file = Fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort().at(-1)!
const s = summarize(`${dir}/${file}`, { top: 40 })
console.log(profileMarkdown(s, 25))
