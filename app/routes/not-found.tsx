import type { Route } from "./+types/not-found";
import { notFound } from "~/server/i18n.server";

/** Nothing matched. */
export function loader({ url }: Route.LoaderArgs) {
  notFound(url.pathname);
}

export default function NotFound() {
  return null;
}
