import { expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { formWith, prefixOf, texts } from "./auth";
import { addMember, otherAccount } from "./organizations";

/**
 * An organization made on its create page by the signed-in `page`, with a member added: the
 * organization's overview is open when it returns.
 */
export async function workspaceWithMember(page: Page, request: APIRequestContext, locale: string, name: string) {
  const t = texts(locale);
  const P = prefixOf(locale);
  await page.goto(`${P}/organizations/new`);
  const create = formWith(page, t("organization:new.submit"));
  await create.getByLabel(t("organization:form.name"), { exact: true }).fill(name);
  await create.getByLabel(t("organization:form.slug"), { exact: true }).fill(name.toLowerCase().replace(/\s+/g, "-"));
  await create.getByRole("button", { name: t("organization:new.submit") }).click();
  const slug = name.toLowerCase().replace(/\s+/g, "-");
  await expect(page).toHaveURL(`${P}/organizations/${slug}`);
  const member = await otherAccount(request, "Max Member");
  addMember(slug, member.email);
  return { slug, member, base: `${P}/organizations/${slug}` };
}

/** The organization's tab `section` (its label in `locale`), clicked, and the page it opens. */
export async function openSection(page: Page, locale: string, organization: string, section: string) {
  const t = texts(locale);
  const tabs = page.getByRole("navigation", { name: t("organization:nav.label", { name: organization }) });
  await tabs.getByRole("link", { name: t(`organization:nav.${section}`), exact: true }).click();
}

/**
 * Overflow of the document and of each of `elements` (true where its content is wider than
 * its box), and whether each lies within the viewport's width.
 */
export async function overflowOf(page: Page, elements: Locator) {
  const whole = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  const each = await elements.evaluateAll((nodes) =>
    nodes.map((node) => {
      const box = node.getBoundingClientRect();
      return {
        text: (node.textContent ?? "").trim().slice(0, 30),
        clipped: node.scrollWidth > node.clientWidth + 1,
        offscreen: box.left < 0 || box.right > window.innerWidth + 0.5,
        height: box.height,
      };
    }),
  );
  return { document: whole, each };
}
