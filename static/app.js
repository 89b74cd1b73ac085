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

// The reading list: paper IDs kept in this browser's localStorage, newest first. Nothing is
// sent to the server except as the ?ids= of the /saved page the reader opens.
(function () {
  const KEY = "catalog.saved";
  const MAX = 500; // what a /saved link and /api/recommendations accept
  const ID = /^[0-9a-f]{16}$/;
  const FORMAT = "ml-paper-catalog/reading-list";

  function load() {
    try {
      const items = JSON.parse(localStorage.getItem(KEY) || "[]");
      return Array.isArray(items) ? items.filter((item) => item && ID.test(item.id)) : [];
    } catch (error) {
      return [];
    }
  }
  function store(items) {
    try {
      localStorage.setItem(KEY, JSON.stringify(items.slice(0, MAX)));
    } catch (error) { /* storage full or disabled: the list stays as it was */ }
  }
  const savedIds = () => load().map((item) => item.id);
  function add(items) {
    const list = load();
    const known = new Set(list.map((item) => item.id));
    const fresh = items.filter((item) => ID.test(item.id) && !known.has(item.id));
    const merged = fresh.concat(list);
    merged.sort((a, b) => String(b.saved_at || "").localeCompare(String(a.saved_at || "")));
    store(merged);
    return Math.min(fresh.length, MAX - list.length);
  }
  const remove = (id) => store(load().filter((item) => item.id !== id));
  const now = () => new Date().toISOString();
  // When an imported paper was saved: a date as text or a number of milliseconds, else now
  // (a number there made the sort below throw and nothing was imported).
  function savedAt(value) {
    const date = typeof value === "string" || typeof value === "number" ? new Date(value) : null;
    return date && !isNaN(date.getTime()) ? date.toISOString() : now();
  }

  function show() {
    const saved = new Set(savedIds());
    document.querySelectorAll("button[data-save]").forEach((button) => {
      const on = saved.has(button.dataset.save);
      button.hidden = false;
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.firstChild.textContent = on ? "Saved" : "Save";
    });
    const count = document.getElementById("saved-count");
    if (count) count.textContent = " (" + saved.size + ")";
  }

  const page = document.getElementById("saved-page");
  const pageIds = page && page.dataset.ids ? page.dataset.ids.split(",") : [];
  const listed = new URLSearchParams(location.search).has("ids");
  // The reader's own list is the page when it shows exactly their saved papers.
  const mine = () => {
    const saved = savedIds();
    return saved.length === pageIds.length && pageIds.every((id) => saved.includes(id));
  };
  function reopen() {
    const ids = savedIds();
    location.replace(ids.length ? "/saved?ids=" + ids.join(",") : "/saved");
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-save], button[data-remove]");
    if (!button) return;
    const id = button.dataset.save || button.dataset.remove;
    const ownPage = page && mine();
    if (button.dataset.remove || savedIds().includes(id)) {
      remove(id);
    } else if (!add([{ id: id, saved_at: now() }])) {
      button.firstChild.textContent = "List full (" + MAX + ")";
      return;
    }
    if (ownPage) { reopen(); return; } // the list shown, its links and its recommendations
    show();
  });
  window.addEventListener("storage", (event) => { if (event.key === KEY) show(); });
  show();
  if (!page) return;

  if (!listed && savedIds().length) { reopen(); return; }
  const status = document.getElementById("saved-status");
  document.getElementById("saved-manage").hidden = false;
  document.getElementById("saved-privacy").hidden = false;
  if (mine()) {
    document.querySelectorAll("button[data-remove]").forEach((b) => { b.hidden = false; });
  } else if (pageIds.length) {
    const addButton = document.getElementById("saved-add");
    const saved = new Set(savedIds());
    const missing = pageIds.filter((id) => !saved.has(id));
    if (addButton && missing.length) {
      addButton.hidden = false;
      addButton.textContent = "Add these " + missing.length + " to my list";
      addButton.addEventListener("click", () => {
        const at = now(); // one moment for all: the list keeps the order it was shared in
        const added = add(missing.map((id) => ({ id: id, saved_at: at })));
        addButton.textContent = "Added " + added + " to your list";
        addButton.disabled = true;
        show();
      });
    }
  }

  document.getElementById("saved-export").addEventListener("click", () => {
    const body = JSON.stringify(
      { format: FORMAT, version: 1, exported_at: now(), papers: load() }, null, 1);
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([body], { type: "application/json" }));
    link.download = "reading-list.json";
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    status.textContent = "Exported " + load().length + " papers to reading-list.json.";
  });

  document.getElementById("saved-import").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    let items;
    let skipped = 0;
    try {
      const data = JSON.parse(await file.text());
      // Our export, a bare list of IDs, or a list of papers (the /saved.json download).
      const entries = Array.isArray(data) ? data : (data && data.papers) || [];
      items = entries.map((entry) => (typeof entry === "string"
        ? { id: entry, saved_at: now() }
        : { id: entry && String(entry.id), saved_at: savedAt(entry && entry.saved_at) }));
      items = items.filter((item) => ID.test(item.id));
      skipped = entries.length - items.length;
    } catch (error) {
      items = null;
    }
    if (!items || !items.length) {
      status.textContent = file.name + " holds no paper IDs: nothing imported.";
      return;
    }
    const ownPage = mine();
    const added = add(items);
    status.textContent = "Imported " + added + " papers (" + (items.length - added) +
      " were already saved or did not fit" +
      (skipped ? "; " + skipped + " entries were not paper IDs and were skipped" : "") + ").";
    if (ownPage && added) reopen();
  });

  const clear = document.getElementById("saved-clear");
  const confirmBox = document.getElementById("saved-confirm");
  clear.addEventListener("click", () => {
    confirmBox.hidden = false;
    document.getElementById("saved-clear-no").focus();
  });
  document.getElementById("saved-clear-no").addEventListener("click", () => {
    confirmBox.hidden = true;
    clear.focus();
  });
  document.getElementById("saved-clear-yes").addEventListener("click", () => {
    store([]);
    reopen();
  });
})();

// The theme switch: dark or light, kept in this browser (theme.js applies it before the page
// is drawn); until pressed, pages follow the system's preference.
(function () {
  const toggle = document.getElementById("theme-toggle");
  if (!toggle) return;
  const root = document.documentElement;
  const show = () => toggle.setAttribute("aria-pressed", String(root.dataset.theme === "dark"));
  show();
  toggle.hidden = false;  // without this script the page follows the system's preference
  toggle.addEventListener("click", () => {
    root.dataset.theme = root.dataset.theme === "dark" ? "light" : "dark";
    try {
      localStorage.setItem("theme", root.dataset.theme);
    } catch (error) {
      // Storage refused: the theme holds for this page only.
    }
    show();
  });
})();
