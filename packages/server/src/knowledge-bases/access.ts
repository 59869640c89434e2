/**
 * How the knowledge bases' endpoints find the base a request names: for a read, in the caller's
 * accounts; for a write, in the named (or selected) account when there is one (403 if not the
 * caller's), else in any of the caller's accounts. Another account's base is a 404.
 */
import { CurrentCaller } from "@platform-kit/api"
import { NotFound } from "@platform-kit/schema"
import { Effect } from "effect"
import { accountForWrite, callerAccounts } from "../auth/access.js"
import { KnowledgeBasesRepo } from "./KnowledgeBasesRepo.js"

export const notFound = (label: string, id: string) => new NotFound({ detail: `${label} ${id} not found` })

/** The knowledge base a write under it goes to (see the module comment). */
export const knowledgeBaseForWrite = (knowledgeBaseId: string, accountId: string | undefined) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const accounts = accountId !== undefined || caller.selectedAccountId !== undefined
      ? [yield* accountForWrite(accountId)]
      : caller.accountIds
    return yield* Effect.flatMap(KnowledgeBasesRepo, (knowledgeBases) => knowledgeBases.get(knowledgeBaseId, accounts))
  })

/** The knowledge base a read names, in the caller's accounts. */
export const knowledgeBaseForRead = (knowledgeBaseId: string) =>
  Effect.flatMap(callerAccounts, (accounts) => Effect.flatMap(KnowledgeBasesRepo, (knowledgeBases) => knowledgeBases.get(knowledgeBaseId, accounts)))
