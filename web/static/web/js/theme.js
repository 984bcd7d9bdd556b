// The colour theme: the system's preference (prefers-color-scheme, in site.css), unless the header's
// switch chose one, remembered in this browser. A classic script in <head>, so the page is drawn in
// its theme at once (no bright flash before a dark page).

(() => {
  const KEY = "dp:theme";
  const root = document.documentElement;
  const chosen = () => localStorage.getItem(KEY);
  const system = matchMedia("(prefers-color-scheme: dark)");
  const dark = () => (chosen() ? chosen() === "dark" : system.matches);

  function apply() {
    if (chosen()) root.dataset.theme = chosen();
    else delete root.dataset.theme;
    const button = document.getElementById("theme-switch");
    if (button) {
      // The switch says what it does, to the other theme: a sun or a moon, named in words.
      button.textContent = dark() ? "☀" : "☾";
      const words = dark() ? "Light theme" : "Dark theme";
      button.setAttribute("aria-label", words);
      button.title = words;
    }
  }

  apply();
  system.addEventListener("change", apply);
  document.addEventListener("DOMContentLoaded", () => {
    apply();
    document.getElementById("theme-switch")?.addEventListener("click", () => {
      const next = dark() ? "light" : "dark";
      // Back to the system's choice when it agrees: a later change of the system is then followed again.
      if ((next === "dark") === system.matches) localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, next);
      apply();
    });
  });
})();
