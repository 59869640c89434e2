/**
 * The admin CLI (`npx platform-kit …`): accounts, keys and memberships, written straight into the
 * database of `DATABASE_URL` (the server's own, while it runs or not). Parsing is by hand: the
 * grammar is six commands with three flags at most.
 *
 *   platform-kit accounts create [--name N]                                   prints the account id
 *   platform-kit accounts list                                                one account a line
 *   platform-kit keys create --account A [--identity-type T] [--email E]       prints the key, once
 *   platform-kit keys list [--account A]                                      one key a line, never the key
 *   platform-kit keys revoke <key>                                            the key is a 401 at once
 *   platform-kit members add --account A --identity I [--role R]
 *
 * What a script captures goes to stdout, one value a line (a list: one row a line, its fields
 * separated by tabs); notes for the person, such as a list's column names, go to stderr.
 */
import { AccountRole, type IdentityType } from "@platform-kit/schema"
import { Data, Effect, Either, Redacted, Schema } from "effect"
import { Accounts } from "../auth/Accounts.js"

export const usage = `Usage: platform-kit <command>

  accounts create [--name NAME]
      Creates an account; prints its id.
  accounts list
      Prints every account, oldest first: id, name, created at (tab-separated).
  keys create --account ACCOUNT_ID [--identity-type user|service_account] [--email EMAIL]
      Creates an identity (default type: user; with the e-mail address GET /user-info reports) that
      is an admin of the account, and an API key for it; prints the key (shown only this once). The
      identity id goes to stderr. The way back in when a key is lost: a new key for the account.
  keys list [--account ACCOUNT_ID]
      Prints every key (of the account's members), oldest first: key id, its first characters,
      identity, identity type, accounts, created at, active or revoked at (tab-separated). The
      keys themselves are not kept: only their first characters.
  keys revoke KEY
      Revokes the key: from the next request on, it is refused with 401.
  members add --account ACCOUNT_ID --identity IDENTITY_ID [--role ROLE]
      Makes an existing identity a member of another account (adding it twice changes nothing),
      with the role GET /user-info reports (default admin; every member may read and write).

The database is the server's: DATABASE_URL (default sqlite:./data/platform.db).`

export type Command = Data.TaggedEnum<{
  Help: {}
  AccountsCreate: { readonly name: string | undefined }
  AccountsList: {}
  KeysList: { readonly account: string | undefined }
  KeysCreate: { readonly account: string; readonly identityType: IdentityType; readonly email: string | undefined }
  KeysRevoke: { readonly key: string }
  MembersAdd: { readonly account: string; readonly identity: string; readonly role: AccountRole }
}>
export const Command = Data.taggedEnum<Command>()

/** The command line did not parse: the message and the usage go to stderr, exit code 2. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The command parsed but cannot be done (an unknown account, key or identity): exit code 1. */
export class AdminError extends Data.TaggedError("AdminError")<{ readonly message: string }> {}

/** Splits `args` into positionals and `--flag value` / `--flag=value` pairs, allowing only `known` flags. */
const splitArgs = (
  args: ReadonlyArray<string>,
  known: ReadonlyArray<string>
): Either.Either<{ positional: Array<string>; flags: Map<string, string> }, UsageError> => {
  const positional: Array<string> = []
  const flags = new Map<string, string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith("--")) {
      positional.push(arg)
      continue
    }
    const eq = arg.indexOf("=")
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
    if (!known.includes(name)) return Either.left(new UsageError({ message: `unknown option --${name}` }))
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1)
    if (value === undefined || value === "" || (eq === -1 && value.startsWith("--"))) {
      return Either.left(new UsageError({ message: `--${name} needs a value` }))
    }
    if (flags.has(name)) return Either.left(new UsageError({ message: `--${name} given twice` }))
    flags.set(name, value)
  }
  return Either.right({ positional, flags })
}

const required = (flags: Map<string, string>, name: string) => {
  const value = flags.get(name)
  return value === undefined ? Either.left(new UsageError({ message: `--${name} is required` })) : Either.right(value)
}

const isRole = Schema.is(AccountRole)

const noPositional = (positional: ReadonlyArray<string>) =>
  positional.length === 0
    ? Either.right(undefined)
    : Either.left(new UsageError({ message: `unexpected argument ${positional[0]}` }))

/** The command an argument list (without `node` and the script) asks for. */
export const parse = (argv: ReadonlyArray<string>): Either.Either<Command, UsageError> => {
  const [group, action, ...rest] = argv
  if (group === undefined || group === "help" || group === "--help" || group === "-h") {
    return Either.right(Command.Help())
  }
  if (rest.includes("--help") || rest.includes("-h") || action === "--help" || action === "-h") {
    return Either.right(Command.Help())
  }
  const command = `${group} ${action ?? ""}`.trim()
  switch (command) {
    case "accounts create":
      return Either.gen(function*() {
        const { flags, positional } = yield* splitArgs(rest, ["name"])
        yield* noPositional(positional)
        return Command.AccountsCreate({ name: flags.get("name") })
      })
    case "accounts list":
      return Either.gen(function*() {
        const { positional } = yield* splitArgs(rest, [])
        yield* noPositional(positional)
        return Command.AccountsList()
      })
    case "keys list":
      return Either.gen(function*() {
        const { flags, positional } = yield* splitArgs(rest, ["account"])
        yield* noPositional(positional)
        return Command.KeysList({ account: flags.get("account") })
      })
    case "keys create":
      return Either.gen(function*() {
        const { flags, positional } = yield* splitArgs(rest, ["account", "identity-type", "email"])
        yield* noPositional(positional)
        const account = yield* required(flags, "account")
        const identityType = flags.get("identity-type") ?? "user"
        if (identityType !== "user" && identityType !== "service_account") {
          return yield* Either.left(
            new UsageError({ message: `--identity-type must be user or service_account, not ${identityType}` })
          )
        }
        return Command.KeysCreate({ account, identityType, email: flags.get("email") })
      })
    case "keys revoke":
      return Either.gen(function*() {
        const { positional } = yield* splitArgs(rest, [])
        if (positional.length !== 1) {
          return yield* Either.left(new UsageError({ message: "keys revoke takes exactly one key" }))
        }
        return Command.KeysRevoke({ key: positional[0]! })
      })
    case "members add":
      return Either.gen(function*() {
        const { flags, positional } = yield* splitArgs(rest, ["account", "identity", "role"])
        yield* noPositional(positional)
        const account = yield* required(flags, "account")
        const identity = yield* required(flags, "identity")
        const role = flags.get("role") ?? "admin"
        if (!isRole(role)) {
          return yield* Either.left(new UsageError({ message: `--role must be one of ${AccountRole.literals.join(", ")}, not ${role}` }))
        }
        return Command.MembersAdd({ account, identity, role })
      })
    default:
      return Either.left(new UsageError({ message: `unknown command: ${command}` }))
  }
}

/** What a command prints: `out` lines to stdout, `notes` lines to stderr. */
export interface Output {
  readonly out: ReadonlyArray<string>
  readonly notes: ReadonlyArray<string>
}

const ensureAccount = (accounts: Accounts, id: string) =>
  Effect.flatMap(
    accounts.accountExists(id),
    (exists) => (exists ? Effect.void : Effect.fail(new AdminError({ message: `account ${id} not found` })))
  )

/** Carries out a command against the database. */
export const run = (command: Command): Effect.Effect<Output, AdminError, Accounts> =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    switch (command._tag) {
      case "Help":
        return { out: [usage], notes: [] }
      case "AccountsCreate": {
        const id = yield* accounts.createAccount(command.name !== undefined ? { name: command.name } : {})
        return { out: [id], notes: [] }
      }
      case "AccountsList": {
        const rows = yield* accounts.listAccounts
        return {
          out: rows.map((account) => [account.id, account.name, account.created_at].join("\t")),
          notes: [rows.length === 0 ? "no accounts" : "id\tname\tcreated_at"]
        }
      }
      case "KeysList": {
        if (command.account !== undefined) yield* ensureAccount(accounts, command.account)
        const rows = yield* accounts.listKeys(command.account)
        return {
          out: rows.map((key) =>
            [
              key.id,
              key.key_prefix === null ? "-" : `${key.key_prefix}…`,
              key.identity_id,
              key.identity_type,
              key.account_ids.join(","),
              key.created_at,
              key.revoked_at === null ? "active" : `revoked ${key.revoked_at}`
            ].join("\t")
          ),
          notes: [rows.length === 0 ? "no keys" : "id\tkey\tidentity\ttype\taccounts\tcreated_at\tstate"]
        }
      }
      case "KeysCreate": {
        yield* ensureAccount(accounts, command.account)
        const made = yield* accounts.provisionUser({
          accountId: command.account,
          type: command.identityType,
          ...(command.email !== undefined ? { email: command.email } : {})
        })
        return {
          out: [Redacted.value(made.key)],
          notes: [
            `identity ${made.identityId} (${command.identityType}), member of account ${made.accountId}`,
            "the key is shown only this once"
          ]
        }
      }
      case "KeysRevoke": {
        const state = yield* accounts.keyState(command.key)
        if (state === "unknown") return yield* Effect.fail(new AdminError({ message: "no such key" }))
        yield* accounts.revokeKey(command.key)
        return { out: [state === "revoked" ? "already revoked" : "revoked"], notes: [] }
      }
      case "MembersAdd": {
        yield* ensureAccount(accounts, command.account)
        if (!(yield* accounts.identityExists(command.identity))) {
          return yield* Effect.fail(new AdminError({ message: `identity ${command.identity} not found` }))
        }
        yield* accounts.addMember(command.identity, command.account, command.role)
        return { out: [`identity ${command.identity} is a member (${command.role}) of account ${command.account}`], notes: [] }
      }
    }
  })
