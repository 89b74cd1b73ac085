// The colour theme, set before the page is first drawn (this file loads in <head>, without
// defer): the reader's choice kept in this browser, else the system's preference.
(function () {
  let chosen = null;
  try {
    chosen = localStorage.getItem("theme");
  } catch (error) {
    // Storage refused (private mode): follow the system.
  }
  const dark = chosen ? chosen === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
})();
