// Small niceties; every page works without them.
// "/" focuses the box; typing offers completions from /api/suggest.
(function () {
  const box = document.getElementById("q");
  const list = document.getElementById("q-suggestions");
  if (!box || !list) return;

  document.addEventListener("keydown", (event) => {
    const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
    if (event.key === "/" && !typing) {
      event.preventDefault();
      box.focus();
      box.select();
    }
  });

  let timer = null;
  box.setAttribute("aria-autocomplete", "list");
  box.setAttribute("aria-controls", "q-suggestions");
  box.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const q = box.value;
      if (q.trim().length < 2) { list.hidden = true; return; }
      try {
        const response = await fetch("/api/suggest?q=" + encodeURIComponent(q));
        const body = await response.json();
        list.replaceChildren(...body.suggestions.map((text) => {
          const item = document.createElement("li");
          item.setAttribute("role", "option");
          item.textContent = text;
          item.addEventListener("mousedown", (event) => {
            event.preventDefault();
            box.value = text;
            list.hidden = true;
            box.form.submit();
          });
          return item;
        }));
        list.hidden = body.suggestions.length === 0;
      } catch (error) {
        list.hidden = true;
      }
    }, 150);
  });
  box.addEventListener("blur", () => { list.hidden = true; });
  box.addEventListener("keydown", (event) => { if (event.key === "Escape") list.hidden = true; });
})();

// "Copy BibTeX" buttons copy the text of the element their data-copy names.
document.querySelectorAll("button[data-copy]").forEach((button) => {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const source = document.getElementById(button.dataset.copy);
    try {
      await navigator.clipboard.writeText(source.textContent);
      button.textContent = "Copied";
    } catch (error) {
      window.getSelection().selectAllChildren(source);
      button.textContent = "Selected: press Ctrl+C";
    }
  });
});
