import { describe, expect, it } from "vitest";
import { alertTemplate } from "../../src/mail/templates/alerts.ts";
import { createMailCatalogue, renderMail } from "../../src/mail/templates/index.ts";
import { alertRegistry, NOTIFICATION_TEMPLATES } from "../../src/notifications/alerts/registry.ts";

// Issue 37: a mail template is one definition; the alerts' templates, defined in the
// notifications area, join the mail area's at wiring, and a name or category is declared once.
describe("the mail catalogue", () => {
  const catalogue = createMailCatalogue(NOTIFICATION_TEMPLATES);

  it("knows the mail area's templates and every alert's template and category", () => {
    expect(catalogue.template("verify-email")?.category.key).toBe("account");
    for (const alert of alertRegistry) {
      const { name, category } = alert.kind.template;
      expect(catalogue.template(name)).toBe(alert.kind.template);
      expect(catalogue.category(category.key)).toBe(alert.kind.category);
      expect(category.essential).toBe(false);
    }
    expect(catalogue.category("digest_weekly")).toMatchObject({ defaultOn: false });
    expect(catalogue.template("no-such-template")).toBeUndefined();
  });

  it("refuses a template name or a category declared twice, and a template never registered", () => {
    const first = NOTIFICATION_TEMPLATES[0]!;
    expect(() => createMailCatalogue([...NOTIFICATION_TEMPLATES, first])).toThrow(
      `Mail template ${first.name} is declared twice`,
    );
    expect(() => createMailCatalogue([{ ...first, name: "verify-email" }])).toThrow(
      "Mail template verify-email is declared twice",
    );
    const sameKey = alertTemplate("alert-other", { ...first.category });
    expect(() => createMailCatalogue([...NOTIFICATION_TEMPLATES, sameKey])).toThrow(
      `Mail category ${first.category.key} is declared twice`,
    );
    const stray = alertTemplate("alert-stray", first.category);
    expect(() => catalogue.resolve(stray)).toThrow("not registered");
    expect(catalogue.resolve(first)).toEqual({ name: first.name, template: first });
  });

  it("renders an alert in the layout, with its category's footer", async () => {
    const template = catalogue.template("alert-drive-full")!;
    const mail = await renderMail(
      template,
      {
        title: "Your Google Drive is full: backups are on hold",
        preview: "Your Google Drive is full.",
        paragraphs: ["Your Google Drive is full."],
        items: [],
        action: { label: "Free up Drive space", url: "https://drive.google.com/settings/storage" },
      },
      {
        appUrl: "http://keepsake.test",
        unsubscribeUrl: "http://keepsake.test/unsubscribe?token=x",
      },
    );
    expect(mail.subject).toBe("Your Google Drive is full: backups are on hold");
    expect(mail.text).toContain("Free up Drive space");
    expect(mail.text).toContain(template.category.why);
    expect(mail.html).toContain("http://keepsake.test/unsubscribe?token=x");
  });
});
