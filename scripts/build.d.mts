/** Types of scripts/build.mjs, for bench/build.ts and the process suites' global setup. */
export declare const buildServer: (outDir?: string, options?: { readonly quiet?: boolean }) => Promise<string>
export declare const cliDir: string
export declare const buildCli: (outDir?: string) => Promise<string>
export declare const upToDate: (outDir?: string, entry?: string) => boolean
