// All the JavaScript of the prerendered landing page (/, built by scripts/build.ts).
(() => {
  // SPEC §2: a signed-in user goes on to the dashboard (before the page paints).
  try {
    if (localStorage.getItem("keepsake.token")) location.replace("/dashboard");
  } catch {}
  // The header's menu button on small screens.
  document.addEventListener("click", (event) => {
    const toggle = event.target instanceof Element && event.target.closest(".menu-toggle");
    const nav = document.getElementById("primary-nav");
    if (!toggle || !nav) return;
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    toggle.setAttribute("aria-label", open ? "Close menu" : "Open menu");
    nav.classList.toggle("primary-nav-open", open);
  });
})();
