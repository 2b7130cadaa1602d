/**
 * What must happen before a user or an organization is deleted. The domains that delete
 * (auth deletes users, organization deletes organizations, the admin console both) sit below
 * billing and cannot call up into it, so a domain above registers its step here (billing:
 * end the party's subscriptions) and every deletion runs all steps first. A step that throws
 * stops the deletion before anything is deleted (or any confirmation token spent).
 */
import type { RequestMeta } from "~/server/auth/session.server";

export interface Deletion {
  kind: "user" | "organization";
  id: string;
  /** Who deletes: the user themself, an owner, or an admin. */
  actorId: string;
  meta: RequestMeta;
}

type Step = (deletion: Deletion) => Promise<void>;

// By name, so a module evaluated again (development's hot reload) replaces its step.
const steps = new Map<string, Step>();

export function beforeDeletion(name: string, step: Step): void {
  steps.set(name, step);
}

export async function prepareDeletion(deletion: Deletion): Promise<void> {
  for (const step of steps.values()) await step(deletion);
}
