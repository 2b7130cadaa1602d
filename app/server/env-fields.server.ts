/**
 * Environment field builders used both by the environment schema (env.server.ts) and by the
 * social providers' own variables, which must not import env.server.ts: it imports them.
 */
import { z } from "zod";

/** A URL whose scheme is one of `protocols` (e.g. ["smtp:", "smtps:"]); `required` words its absence. */
export function urlWith(protocols: string[], example: string, required?: string) {
  return z.string(required ? { error: required } : undefined).refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { message: `must be a ${protocols.map((p) => p.replace(":", "")).join("/")} URL such as ${example}` },
  );
}

export const httpUrl = (example: string) => urlWith(["http:", "https:"], example);
