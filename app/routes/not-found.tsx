import type { Route } from "./+types/not-found";
import { notFound } from "~/server/i18n.server";

/** Nothing matched. */
export function loader({ request }: Route.LoaderArgs) {
  notFound(new URL(request.url).pathname);
}

export default function NotFound() {
  return null;
}
