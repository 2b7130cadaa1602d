import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { locales } from "~/i18n/config";
import { renderEmail, templateNames } from "./templates.server";

function flatten(value: unknown, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (child && typeof child === "object") for (const [k, v] of flatten(child, path)) out.set(k, v);
    else out.set(path, String(child));
  }
  return out;
}

const load = (lng: string) =>
  flatten(JSON.parse(readFileSync(new URL(`../../../locales/${lng}/email.json`, import.meta.url), "utf8")));

describe("email translations", () => {
  const english = load("en");
  for (const lng of locales.filter((l) => l !== "en")) {
    it(`${lng}/email.json has exactly the English keys, each translated with its placeholders`, () => {
      const other = load(lng);
      expect([...other.keys()].sort()).toEqual([...english.keys()].sort());
      for (const [key, text] of english) {
        for (const p of text.match(/{{\s*\w+\s*}}/g) ?? []) expect(other.get(key), `${lng}:${key}`).toContain(p);
        expect(other.get(key)?.trim(), `${lng}:${key}`).not.toBe("");
      }
    });
  }
});

describe("rendered emails", () => {
  it("fills every template in every locale, with the link in both bodies", () => {
    for (const lng of locales) {
      for (const template of templateNames) {
        const url = "https://app.example.com/api/auth/x?token=abc&callbackURL=%2F";
        const mail = renderEmail(template, lng, {
          url,
          name: "Ada",
          oldEmail: "old@x.io",
          newEmail: "new@x.io",
          organizationName: "Globex",
          inviterName: "Hank",
          role: "admin",
        });
        for (const text of [mail.subject, mail.text, mail.html]) expect(text, `${lng}/${template}`).not.toMatch(/{{/);
        expect(mail.text).toContain(`\n${url}\n`);
        expect(mail.html).toContain(`href="${url.replace(/&/g, "&amp;")}"`);
        if (template === "change-email-confirmation") {
          expect(mail.text).toContain("old@x.io");
          expect(mail.text).toContain("new@x.io");
        }
        if (template === "organization-invitation") {
          for (const fact of ["Globex", "Hank"]) expect(mail.subject + mail.text, `${lng}/${template}`).toContain(fact);
        }
      }
    }
  });

  it("escapes names in HTML and greets neutrally without one", () => {
    const mail = renderEmail("verify-email", "en", { url: "https://x.io/", name: "<b>Eve</b>" });
    expect(mail.html).toContain("Hi &lt;b&gt;Eve&lt;/b&gt;,");
    expect(mail.html).not.toContain("<b>Eve");
    expect(renderEmail("verify-email", "fr", { url: "https://x.io/", name: " " }).text.startsWith("Bonjour,")).toBe(
      true,
    );
    expect(renderEmail("reset-password", "de", { url: "https://x.io/" }).subject).toBe("Reset your password");
  });

  it("names the invited roles in the email's language, and gives invitations their own footer", () => {
    const data = { url: "https://x.io/", organizationName: "Globex", inviterName: "Hank", role: "admin,member" };
    expect(renderEmail("organization-invitation", "en", data).text).toContain("Your role: Admin and Member.");
    expect(renderEmail("organization-invitation", "fr", data).text).toContain("Votre rôle : Administrateur et Membre.");
    expect(renderEmail("organization-invitation", "ja", data).text).toContain("管理者、メンバー");
    expect(renderEmail("organization-invitation", "zh-CN", data).text).toContain("管理员和成员");
    expect(renderEmail("organization-invitation", "en", data).text).toMatch(/because Hank invited this address/);
    expect(renderEmail("verify-email", "en", data).text).toMatch(/because of an action on your Acme Cloud account/);
  });
});
