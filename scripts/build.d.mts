/** Types of scripts/build.mjs, for bench/build.ts. */
export declare const buildServer: (outDir?: string, options?: { readonly quiet?: boolean }) => Promise<string>
export declare const upToDate: (outDir?: string) => boolean
