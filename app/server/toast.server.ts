import { createCookie, redirect } from "react-router";
import { z } from "zod";
import { loadEnv } from "~/server/env.server";

/** A toast the server flashes through a cookie so it shows after a redirect, even without JS. */
const toastSchema = z.object({
  id: z.string().default(() => crypto.randomUUID()),
  type: z.enum(["success", "error", "info"]).default("info"),
  title: z.string(),
  description: z.string().optional(),
});
export type Toast = z.infer<typeof toastSchema>;
export type ToastInput = z.input<typeof toastSchema>;

function toastCookie() {
  return createCookie("toast", {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: loadEnv().secureCookies,
    secrets: [loadEnv().AUTH_SECRET],
  });
}

export async function createToastHeaders(toast: ToastInput): Promise<Headers> {
  const value = toastSchema.parse(toast);
  return new Headers({ "Set-Cookie": await toastCookie().serialize(value) });
}

export async function redirectWithToast(url: string, toast: ToastInput, init?: ResponseInit) {
  const headers = new Headers(init?.headers);
  for (const cookie of (await createToastHeaders(toast)).getSetCookie()) headers.append("Set-Cookie", cookie);
  return redirect(url, { ...init, headers });
}

/** Reads and clears the flashed toast. */
export async function getToast(request: Request): Promise<{ toast: Toast | null; headers: Headers | null }> {
  const cookie = toastCookie();
  const parsed = toastSchema.safeParse(await cookie.parse(request.headers.get("Cookie")));
  if (!parsed.success) return { toast: null, headers: null };
  const headers = new Headers({ "Set-Cookie": await cookie.serialize("", { maxAge: 0 }) });
  return { toast: parsed.data, headers };
}
