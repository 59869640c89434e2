/**
 * A response body that its producer pushes bytes into (a task stream's subscriber, docs/agent-tasks.md
 * "Streams"): a Node `Readable` for whatever serves it — `HttpApiBuilder.serve`, the in-process
 * client, a test — and, under the lean server, the response's socket itself. Once the lean server has
 * written the head, `attach` makes every later `send` one `socket.write` of bytes framed once for
 * every subscriber (`framed`: the chunked encoding's length line and CRLF around them), instead of
 * a push, a pipe's `data` event, `res.write` (which corks the socket until the next tick) and a
 * `writev` of four pieces per subscriber: some 2 KB allocated a write where this allocates about
 * 200 bytes, and 152 young collections in a busy stream's run where this makes 84
 * (docs/benchmarks.md "The streams' fan-out").
 */
import type * as Http from "node:http"
import type * as Net from "node:net"
import { Readable } from "node:stream"

/** The chunked transfer encoding's frame of `bytes`: their length in hex, CRLF, them, CRLF. */
export const chunkOf = (bytes: Uint8Array): Uint8Array =>
  Buffer.concat([Buffer.from(`${bytes.byteLength.toString(16)}\r\n`, "latin1"), bytes, crlf])
const crlf = Buffer.from("\r\n", "latin1")

export class PushedBody extends Readable {
  private socket: Net.Socket | undefined
  private res: Http.ServerResponse | undefined
  private chunked = false
  private ended = false

  override _read() {}

  /** Sends `bytes`; `framed` gives them in the chunked encoding (made once, shared by every body). */
  send(bytes: Uint8Array, framed: () => Uint8Array): void {
    if (this.socket === undefined) {
      this.push(bytes)
      return
    }
    if (!this.socket.destroyed) this.socket.write(this.chunked ? framed() : bytes)
  }

  /** Ends the body (and the response, when attached); the body closes after. */
  finish(): void {
    this.ended = true
    if (this.res === undefined) {
      this.push(null)
      return
    }
    this.res.end()
    this.destroy()
  }

  /** Bytes sent and not yet taken by the client's socket. */
  get behind(): number {
    return this.socket === undefined ? this.readableLength : this.socket.writableLength
  }

  /**
   * Writes this body to `res` (its head written) through `res`'s socket from now on: what was
   * pushed before first. Only when `res` is its socket's current response (not a pipelined one
   * waiting behind another), has a body (not HEAD) and the body has not ended; otherwise false,
   * and the caller pipes it.
   * The body is destroyed when the response closes (the client went away, or it ended).
   */
  attach(res: Http.ServerResponse): boolean {
    const socket = res.socket
    const current = socket !== null && (socket as { _httpMessage?: unknown })._httpMessage === res
    if (this.ended || this.destroyed || !current || res.req.method === "HEAD") return false
    res.flushHeaders()
    this.res = res
    this.socket = socket
    this.chunked = res.chunkedEncoding
    const pending = this.read() as Buffer | null
    if (pending !== null) socket.write(this.chunked ? chunkOf(pending) : pending)
    res.once("close", () => this.destroy())
    return true
  }
}
