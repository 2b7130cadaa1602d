/**
 * What the answers made in front of React Router read of a request: its method, its whole
 * URL and its headers. server.ts builds one from node:http's request without a fetch
 * Request (whose construction, signal and body stream cost more than such an answer), and a
 * fetch Request is one as it is, so every rule reading a request takes this type and serves
 * both.
 */
import { isbot } from "isbot";

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

/** User agents remembered with their answer; the table starts afresh when full. */
const BOT_ANSWERS_KEPT = 256;
/** Longer user agents are rare and are tested each time, so the table stays small. */
const BOT_AGENT_KEPT_LENGTH = 512;
const botAnswers = new Map<string, boolean>();

/**
 * isbot's answer for a user agent, remembered: its pattern is one long regular expression
 * (about 3 % of a cached page's CPU), asked for by the page cache and again by the renderer,
 * and a site's visitors come with few distinct user agents.
 */
export function isBot(userAgent: string | null | undefined): boolean {
  if (!userAgent) return isbot(userAgent);
  const known = botAnswers.get(userAgent);
  if (known !== undefined) return known;
  const answer = isbot(userAgent);
  if (userAgent.length <= BOT_AGENT_KEPT_LENGTH) {
    if (botAnswers.size >= BOT_ANSWERS_KEPT) botAnswers.clear();
    botAnswers.set(userAgent, answer);
  }
  return answer;
}
