/**
 * What the answers made in front of React Router read of a request: its method, its whole
 * URL and its headers. server.ts builds one from node:http's request without a fetch
 * Request (whose construction, signal and body stream cost more than such an answer), and a
 * fetch Request is one as it is, so every rule reading a request takes this type and serves
 * both.
 */
export interface RequestHead {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

/** An answer made in front of React Router: its status, its headers and its whole body. */
export interface QuickAnswer {
  status: number;
  headers: [name: string, value: string][];
  body: Uint8Array<ArrayBuffer> | string;
}
