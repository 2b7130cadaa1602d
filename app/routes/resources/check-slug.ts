import { data } from "react-router";
import type { Route } from "./+types/check-slug";
import { isSlug } from "~/lib/organization-paths";
import { getUser } from "~/server/auth/guards.server";
import { isAppError } from "~/server/errors.server";
import { checkSlug } from "~/server/organization/organizations.server";
import { limitRate } from "~/server/page-action.server";

/**
 * The create form's live check (`?slug=`), for signed-in users: `error` is null when the
 * slug is free, else a catalogue code the page words. The slug comes back so the page can
 * ignore an answer about what is no longer typed.
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const slug = url.searchParams.get("slug") ?? "";
  if (!getUser(context)) return data({ slug, error: "UNAUTHORIZED" }, { status: 401 });
  if (!isSlug(slug)) return { slug, error: "VALIDATION_ERROR" };
  try {
    await limitRate({ request, context }, "/organization/check-slug");
    await checkSlug(slug);
    return { slug, error: null as string | null };
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { slug, error: error.code };
  }
}
