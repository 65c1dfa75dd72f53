import type { Page } from "playwright-core";

/** A phone's screen: the width every page and dialog must fit (issue 36). */
export const PHONE = { width: 375, height: 812 };

/**
 * What the person can reach with a finger: links, buttons, form fields, and the roles that act
 * like them. Discovered on the page, so new screens and controls are checked too.
 */
const INTERACTIVE = [
  "a[href]",
  "button",
  "input:not([type=hidden])",
  "select",
  "textarea",
  "summary",
  "video[controls]",
  "[role=button]",
  "[role=switch]",
  "[role=tab]",
  "[role=link]",
  "[role=checkbox]",
].join(",");

/**
 * Checks the page as it is now at the phone's width; answers every problem found, each naming
 * `where` and the element:
 * 1. the page never scrolls sideways (`scrollWidth <= innerWidth`);
 * 2. every visible control lies within [0, innerWidth] horizontally;
 * 3. no visible control is covered by another element at its centre (`elementFromPoint` there
 *    answers the control, something inside it, or its label);
 * 4. small overlays placed on the same box (a tile's labels, badge, play mark and buttons) do
 *    not overlap one another.
 * With a modal dialog open (a `<dialog>` opened with showModal(), or `aria-modal`), or `scope`
 * given (an open panel or menu), only what is inside it is checked: the rest is meant to be
 * covered. Toasts are transient and close on a tap: neither their buttons nor what only a toast
 * covers is counted (the one deliberate exception).
 */
export async function phoneProblems(page: Page, where: string, scope?: string): Promise<string[]> {
  const found = await page.evaluate(
    async ({ selector, scopeSelector }) => {
      const W = window.innerWidth;
      const H = window.innerHeight;
      const problems: string[] = [];
      const doc = document.documentElement;
      if (doc.scrollWidth > W)
        problems.push(`the page is ${doc.scrollWidth}px wide (scrolls sideways)`);

      const modals = [
        ...document.querySelectorAll<HTMLElement>('dialog[open], [aria-modal="true"]'),
      ].filter((m) => m.getClientRects().length > 0);
      const root: ParentNode =
        (scopeSelector ? document.querySelector(scopeSelector) : null) ??
        modals[modals.length - 1] ??
        document;
      if (scopeSelector && !document.querySelector(scopeSelector)) {
        problems.push(`nothing matches ${scopeSelector}`);
      }

      const name = (el: Element) => {
        const label =
          el.getAttribute("aria-label") ??
          (el as HTMLInputElement).labels?.[0]?.textContent ??
          el.textContent ??
          "";
        const text = label.replace(/\s+/g, " ").trim().slice(0, 40);
        const cls =
          typeof el.className === "string" && el.className ? `.${el.className.split(" ")[0]}` : "";
        return `<${el.tagName.toLowerCase()}${cls}> "${text}"`;
      };
      const shown = (el: Element) => {
        const r = el.getBoundingClientRect();
        if (r.width <= 1 || r.height <= 1) return false;
        for (let e: Element | null = el; e; e = e.parentElement) {
          const s = getComputedStyle(e);
          if (s.visibility === "hidden" || s.display === "none" || Number(s.opacity) === 0) {
            return false;
          }
        }
        // Clipped away entirely (the visually-hidden pattern).
        const s = getComputedStyle(el);
        return !(s.clipPath === "inset(50%)" || s.clip === "rect(0px, 0px, 0px, 0px)");
      };
      // Toasts slide in and out, close on a tap and are gone in 5 s: not checked.
      const controls = [...root.querySelectorAll<HTMLElement>(selector)].filter(
        (el) => shown(el) && !el.closest(".Toastify"),
      );

      for (const el of controls) {
        const r = el.getBoundingClientRect();
        if (r.left < -0.5 || r.right > W + 0.5) {
          problems.push(
            `${name(el)} is past the screen's edge (x ${Math.round(r.left)}…${Math.round(r.right)})`,
          );
        }
      }

      const toast = (e: Element | null) => !!e?.closest(".Toastify");
      // What covers the control at its centre once it is scrolled to the middle, if anything.
      const coverOf = (el: HTMLElement): Element | null => {
        el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
        // A link that wraps onto two lines: the centre of its first line, not of its box.
        const r = el.getClientRects()[0] ?? el.getBoundingClientRect();
        const x = Math.min(Math.max(r.left + r.width / 2, 0), W - 1);
        const y = r.top + r.height / 2;
        if (y < 0 || y >= H) return null; // inside a box that does not scroll it into view
        const hit = document.elementFromPoint(x, y);
        if (!hit || hit === el || el.contains(hit) || toast(hit)) return null;
        if (hit instanceof HTMLLabelElement && hit.control === el) return null;
        if (el instanceof HTMLLabelElement && el.control === hit) return null;
        if ((hit.closest("label") as HTMLLabelElement | null)?.control === el) return null;
        return hit;
      };
      const suspects = controls.filter((el) => coverOf(el) !== null);
      // Scrolls are instant whatever the page's `scroll-behavior` (a smooth scroll still under
      // way once let a sticky header seem to cover a control); as a further guard, a control is
      // covered only if it still is a frame after it was scrolled to again.
      for (const el of suspects) {
        el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
        await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
        const hit = coverOf(el);
        if (hit) problems.push(`${name(el)} is covered by ${name(hit)}`);
      }

      // Small things laid over the same box (badges on a tile) must not overlap each other.
      // A cover fills its box (an image, a hover layer, a whole-tile button).
      const covers = (el: Element) => {
        const parent = (el as HTMLElement).offsetParent;
        if (!parent || getComputedStyle(el).position !== "absolute") return false;
        const box = parent.getBoundingClientRect();
        const r = el.getBoundingClientRect();
        return r.width > box.width * 0.6 && r.height > box.height * 0.6;
      };
      const overlays = new Map<Element, HTMLElement[]>();
      for (const el of root.querySelectorAll<HTMLElement>("*")) {
        if (getComputedStyle(el).position !== "absolute" || !el.offsetParent || !shown(el)) {
          continue;
        }
        if (covers(el)) continue;
        // The box it is laid on: through covers, so a badge inside a whole-tile button and a
        // button beside it on the tile are compared.
        let box: Element = el.offsetParent;
        while (covers(box)) box = (box as HTMLElement).offsetParent ?? box;
        const list = overlays.get(box) ?? [];
        list.push(el);
        overlays.set(box, list);
      }
      for (const list of overlays.values()) {
        for (const [i, a] of list.entries()) {
          for (const b of list.slice(i + 1)) {
            if (a.contains(b) || b.contains(a)) continue;
            const ra = a.getBoundingClientRect();
            const rb = b.getBoundingClientRect();
            const overlap =
              Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left) > 0.5 &&
              Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top) > 0.5;
            if (overlap) problems.push(`${name(a)} overlaps ${name(b)}`);
          }
        }
      }
      window.scrollTo(0, 0);
      return problems;
    },
    { selector: INTERACTIVE, scopeSelector: scope ?? null },
  );
  // One line per kind of problem: a list of 36 tiles shows the tile's problem once.
  return [...new Set(found)].map((p) => `${where}: ${p}`);
}

/** Waits until the route's screen has loaded (no route placeholder, and its spinners gone). */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector(".route-loading"), undefined, {
    timeout: 20_000,
  });
  await page
    .waitForFunction(() => !document.querySelector("main .spinner"), undefined, { timeout: 10_000 })
    .catch(() => {}); // a screen that keeps one (a running sync) is checked as it is
  // Fonts settle the layout.
  await page.evaluate(() => document.fonts.ready);
}
