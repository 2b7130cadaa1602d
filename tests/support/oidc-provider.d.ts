/**
 * oidc-provider ships no type declarations; these cover only what the OpenID Connect
 * stand-in (oidc-stand-in.ts) uses.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export interface KoaContextWithOIDC {
    oidc: { client?: { clientId: string } };
    type: string;
    body: unknown;
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface Interaction {
    uid: string;
    returnTo: string;
    params: Record<string, unknown>;
    result?: Record<string, unknown>;
    persist(): Promise<string>;
  }

  export interface Configuration {
    [setting: string]: unknown;
    findAccount?(ctx: KoaContextWithOIDC, sub: string): Promise<Account | undefined> | Account | undefined;
    interactions?: { url?(ctx: KoaContextWithOIDC, interaction: Interaction): Promise<string> | string };
    renderError?(ctx: KoaContextWithOIDC, out: Record<string, string>, error: Error): Promise<void> | void;
  }

  class Grant {
    constructor(properties: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    Grant: typeof Grant;
    AccessToken: { find(value: string): Promise<{ accountId: string; clientId: string } | undefined> };
    Client: { adapter: { upsert(id: string, metadata: Record<string, unknown>): Promise<void> } };
  }
}
