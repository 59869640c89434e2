import { Effect } from "effect";
export interface AgentOptions {
    /** The platform's address (omitted: the base of the `HttpClient` in context) and an API key of the account the agent registers in. */
    readonly baseUrl?: string | undefined;
    readonly apiKey: string;
    readonly name: string;
    readonly acpType: "sync" | "async";
    /** Where the agent listens (0: any free port) on 127.0.0.1. */
    readonly port: number;
}
/** A call the agent received: its method and parameters. */
export interface AgentCall {
    readonly method: string;
    readonly params: any;
}
/**
 * Starts the agent and registers it: answers the registered agent, the calls it received (in
 * order), and its address. Stops with the scope.
 */
export declare const startAgent: (options: AgentOptions) => Effect.Effect<{
    readonly agent: import("@platform-kit/schema").RegisteredAgent;
    readonly received: AgentCall[];
    readonly url: string;
}, import("@platform-kit/schema").ValidationError | import("@effect/platform/HttpClientError").HttpClientError | import("effect/ParseResult").ParseError | import("@platform-kit/schema").Conflict | import("@platform-kit/schema").Unauthorized | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("@platform-kit/schema").Forbidden | import("@platform-kit/schema").PayloadTooLarge | import("@platform-kit/schema").InternalServerError, import("effect/Scope").Scope | import("@effect/platform/HttpClient").HttpClient>;
//# sourceMappingURL=agent.d.ts.map