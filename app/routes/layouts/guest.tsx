import { Outlet } from "react-router";
import type { Route } from "./+types/guest";
import { guestOnlyMiddleware } from "~/server/auth/guards.server";

/** Guest-only pages: signed-in visitors are sent on. */
export const middleware: Route.MiddlewareFunction[] = [guestOnlyMiddleware];

// A loader makes every client navigation into this area ask the server, so the guard runs.
export const loader = () => null;

/** What a visitor without a session sees here follows from the request (app/server/page-cache.server.ts). */
export const handle = { pageCache: true };

export default function GuestOnly() {
  return <Outlet />;
}
