import type { Route } from "./+types/auth";
import { handleAuthRequest } from "~/server/api.server";

/** /api/auth/*: the JSON API of the better-auth contract; every call is dispatched by the registry. */
export function loader({ request, context }: Route.LoaderArgs) {
  return handleAuthRequest(request, context);
}

export function action({ request, context }: Route.ActionArgs) {
  return handleAuthRequest(request, context);
}
