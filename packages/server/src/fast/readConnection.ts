/// <reference path="./better-sqlite3.d.ts" />
/**
 * The `ReadConnection` (../sql/reads.ts) of a SQLite file: a read-only better-sqlite3 connection of
 * its own, opened at first use, its statements prepared once. Only a file in WAL mode has it (a
 * reader could otherwise wait on the writer); closed with the layer.
 */
import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import { ReadConnection } from "../sql/reads.js"

/** Statements prepared on the read connection, at most this many (then it starts over). */
const preparedLimit = 500

/**
 * The read connection's page cache, in KiB (SQLite's default is 2 MiB): a read by id touches an
 * index leaf and a table page; a page already cached costs no `pread` (docs/benchmarks.md
 * "The read connection").
 */
const cacheKiB = 32 * 1024

/** A read-only connection to the SQLite file `filename` (opened at first use, closed with the layer). */
export const readConnectionLayer = (filename: string) =>
  Layer.scoped(
    ReadConnection,
    Effect.gen(function*() {
      // the connection once open, with its prepared statements
      let open: {
        readonly db: Database
        readonly statement: (sql: string) => Database.Statement
        readonly dataVersion: Database.Statement<number>
      } | undefined
      // closed with the layer, or the file is not in WAL mode (a reader could then wait on the writer)
      let unusable = false
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          unusable = true
          open?.db.close()
        })
      )
      /** The open connection (opened at first use), or `undefined` when it cannot serve. */
      const connection = () => {
        if (unusable) return undefined
        if (open !== undefined) return open
        const db = new Database(filename, { readonly: true, fileMustExist: true })
        if (String(db.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal") {
          db.close()
          unusable = true
          return undefined
        }
        db.pragma(`cache_size = -${cacheKiB}`)
        const prepared = new Map<string, Database.Statement>()
        const statement = (sql: string) => {
          let found = prepared.get(sql)
          if (found === undefined) {
            if (prepared.size >= preparedLimit) prepared.clear()
            found = db.prepare(sql)
            prepared.set(sql, found)
          }
          return found
        }
        return open = { db, statement, dataVersion: db.prepare<number>("PRAGMA data_version").pluck() }
      }
      return {
        all: (sql, params) => connection()?.statement(sql).all(...params),
        dataVersion: () => connection()?.dataVersion.get()
      }
    })
  )
