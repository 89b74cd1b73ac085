// Small niceties, by feature; every page works without them. What the browser keeps (the
// reading list, seen marks, hidden papers, the theme) stays in its localStorage.

// The bounds and the paper ID pattern, as the server checks them (<body data-…>).
const LIMITS = {
  id: new RegExp("^(?:" + document.body.dataset.paperId + ")$"),
  saved: Number(document.body.dataset.savedMax),
  seen: Number(document.body.dataset.seenMax),
  hidden: Number(document.body.dataset.hiddenMax),
};

// A list kept in localStorage under `key`: its valid entries, newest first, at most `max`.
function stored(key, max, valid) {
  return {
    key: key,
    load() {
      try {
        const items = JSON.parse(localStorage.getItem(key) || "[]");
        return Array.isArray(items) ? items.filter(valid) : [];
      } catch (error) {
        return [];
      }
    },
    save(items) {
      try {
        localStorage.setItem(key, JSON.stringify(items.slice(0, max)));
      } catch (error) { /* storage full or refused: the list stays as it was */ }
    },
  };
}

// Whether a key press is text being typed (shortcuts then stay out of the way).
function typing() {
  const element = document.activeElement;
  if (!element) return false;
  return element.isContentEditable || /^(TEXTAREA|SELECT)$/.test(element.tagName) ||
    (element.tagName === "INPUT" && !/^(checkbox|radio|button|submit|reset|file)$/.test(element.type));
}

// The search box: "/" focuses it; typing offers completions from /api/suggest.
(function () {
  const box = document.getElementById("q");
  const list = document.getElementById("q-suggestions");
  if (!box || !list) return;

  document.addEventListener("keydown", (event) => {
    if (event.key === "/" && !typing()) {
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
  const MAX = LIMITS.saved; // what a /saved link and /api/recommendations accept
  const ID = LIMITS.id;
  const FORMAT = "ml-paper-catalog/reading-list";
  const kept = stored("catalog.saved", MAX, (item) => item && ID.test(item.id));
  const load = kept.load;
  const store = kept.save;
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
  // The papers marked "less like this" on the reader's own list, kept beside it so that the
  // list reopens with them (they are marked and taken back by the page's own links).
  const LESS = "catalog.less";
  function lessIds() {
    try {
      return (localStorage.getItem(LESS) || "").split(",").filter((id) => ID.test(id));
    } catch (error) {
      return [];
    }
  }
  function reopen() {
    const ids = savedIds();
    const less = lessIds();
    location.replace(ids.length
      ? "/saved?ids=" + ids.join(",") + (less.length ? "&less=" + less.join(",") : "")
      : "/saved");
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
  window.addEventListener("storage", (event) => { if (event.key === kept.key) show(); });
  show();
  if (!page) return;

  if (!listed && savedIds().length) { reopen(); return; }
  const status = document.getElementById("saved-status");
  document.getElementById("saved-manage").hidden = false;
  document.getElementById("saved-privacy").hidden = false;
  if (mine()) {
    try {
      localStorage.setItem(LESS, new URLSearchParams(location.search).get("less") || "");
    } catch (error) { /* storage refused: the marks live in the address only */ }
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

// Seen marks: the papers this browser opened (ID and edition), marked in every list, counted
// on their edition's page and cleared from the saved page.
(function () {
  const seen = stored("catalog.seen", LIMITS.seen,
    (entry) => Array.isArray(entry) && LIMITS.id.test(entry[0]) && typeof entry[1] === "string");
  const opened = document.querySelector("[data-seen]");
  if (opened) {
    const id = opened.dataset.seen;
    seen.save([[id, opened.dataset.venue]].concat(seen.load().filter((entry) => entry[0] !== id)));
  }

  function show() {
    const entries = seen.load();
    const ids = new Set(entries.map((entry) => entry[0]));
    document.querySelectorAll("[data-paper]").forEach((item) => {
      const on = ids.has(item.dataset.paper);
      item.classList.toggle("seen", on);
      const mark = item.querySelector(":scope > .seen-mark");
      if (on && !mark) {
        const label = document.createElement("span");
        label.className = "seen-mark";
        label.textContent = "seen";
        item.querySelector("a.headline").after(" ", label);
      } else if (!on && mark) {
        mark.remove();
      }
    });
    const count = document.getElementById("seen-count");
    if (count) {
      const here = entries.filter((entry) => entry[1] === count.dataset.venue).length;
      count.textContent = here.toLocaleString("en") + " of " +
        Number(count.dataset.total).toLocaleString("en") + " seen in this browser";
      count.hidden = here === 0;
    }
    const total = document.getElementById("seen-total");
    if (total) {
      total.textContent = entries.length
        ? "You have opened " + entries.length.toLocaleString("en") + " paper" +
          (entries.length === 1 ? "" : "s") + " in this browser; lists mark them as seen."
        : "No paper is marked as seen.";
      document.getElementById("seen-clear").hidden = entries.length === 0;
    }
  }

  const clear = document.getElementById("seen-clear");
  if (clear) {
    clear.addEventListener("click", () => {
      seen.save([]);
      show();
    });
  }
  window.addEventListener("storage", (event) => { if (event.key === seen.key) show(); });
  window.addEventListener("pageshow", show); // back from a paper just opened
  show();
})();

// Papers hidden from a list (with "x"): kept per list, the page's address without its page
// number, and shown again from the line "3 hidden — Show" above it.
const hiddenPapers = (function () {
  const hidden = stored("catalog.hidden", LIMITS.hidden,
    (entry) => Array.isArray(entry) && typeof entry[0] === "string" && LIMITS.id.test(entry[1]));
  const params = new URLSearchParams(location.search);
  params.delete("page");
  params.sort();
  const list = location.pathname + (params.toString() ? "?" + params : "");
  const items = Array.from(document.querySelectorAll("[data-paper]"));
  const undone = [];
  let bar = null;

  function show() {
    const here = new Set(hidden.load().filter((entry) => entry[0] === list).map((e) => e[1]));
    let count = 0;
    items.forEach((item) => {
      item.hidden = here.has(item.dataset.paper);
      count += item.hidden ? 1 : 0;
    });
    if (!bar && count) {
      bar = document.createElement("p");
      bar.className = "hidden-bar";
      bar.append(document.createElement("span"), " ", document.createElement("button"));
      bar.lastChild.type = "button";
      bar.lastChild.addEventListener("click", () => {
        const shown = new Set(items.map((item) => item.dataset.paper));
        hidden.save(hidden.load().filter((entry) => entry[0] !== list || !shown.has(entry[1])));
        show();
      });
      items[0].closest("ol, ul").before(bar);
    }
    if (bar) {
      bar.hidden = count === 0;
      bar.firstChild.textContent = count + " hidden —";
      bar.lastChild.textContent = "Show " + (count === 1 ? "it" : "them");
    }
  }
  window.addEventListener("storage", (event) => { if (event.key === hidden.key) show(); });
  if (items.length) show();

  return {
    hide(item) {
      const id = item.dataset.paper;
      hidden.save([[list, id]].concat(
        hidden.load().filter((entry) => entry[0] !== list || entry[1] !== id)));
      undone.push(item);
      show();
    },
    // The paper hidden last on this page, shown again (or null).
    undo() {
      const item = undone.pop();
      if (!item) return null;
      hidden.save(hidden.load().filter((e) => e[0] !== list || e[1] !== item.dataset.paper));
      show();
      return item;
    },
  };
})();

// Keyboard triage on any list of papers: j/k move, o or Enter opens, s saves, x hides, u
// undoes, n/p page, ? shows the keys (templates/_keys.html). The current paper takes the
// focus, so screen readers read it, and is marked with aria-current.
(function () {
  const help = document.getElementById("keys-help");
  const opener = document.getElementById("keys-open");
  opener.hidden = false;
  opener.addEventListener("click", () => help.showModal());
  const visible = () => Array.from(document.querySelectorAll("[data-paper]"))
    .filter((item) => !item.hidden);
  let current = null;

  function focus(item) {
    if (current) {
      current.classList.remove("current");
      current.removeAttribute("aria-current");
    }
    current = item || null;
    if (!current) return;
    current.classList.add("current");
    current.setAttribute("aria-current", "true");
    current.tabIndex = -1;
    current.focus({ preventScroll: true });
    current.scrollIntoView({ block: "nearest" });
  }
  function move(step) {
    const items = visible();
    const at = items.indexOf(current);
    const next = at < 0 ? (step > 0 ? 0 : items.length - 1) : at + step;
    if (items[next]) focus(items[next]);
  }
  function open() {
    if (current) location.assign(current.querySelector("a.headline").href);
  }
  function page(rel) {
    const link = document.querySelector('.pager a[rel="' + rel + '"]');
    if (link) location.assign(link.href);
  }
  function hide() {
    if (!current) return;
    const items = visible();
    const at = items.indexOf(current);
    const next = items[at + 1] || items[at - 1];
    hiddenPapers.hide(current);
    focus(next);
  }
  const keys = {
    j: () => move(1),
    k: () => move(-1),
    o: open,
    s: () => { if (current) current.querySelector("button[data-save]").click(); },
    x: hide,
    u: () => { const item = hiddenPapers.undo(); if (item) focus(item); },
    n: () => page("next"),
    p: () => page("prev"),
    "?": () => help.showModal(),
  };

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || help.open || typing()) return;
    const action = event.key === "Enter"
      ? (current && document.activeElement === current ? open : null)
      : keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });
})();

// The paper map: the papers of this page over the whole field of the catalog, where every
// paper keeps one place (app/paper_map.py). Without script the page shows the server's image
// of both; with it, the field image stays and the papers are drawn on a canvas over it, in
// colours by topic, year or status, with their titles on hover; a click opens a paper, and a
// dragged box lists its papers and their most frequent keyphrases.
async function drawMap(figure) {
  const size = Number(figure.dataset.size);
  const margin = Number(figure.dataset.margin);
  const inner = size - 2 * margin - 1;
  let body;
  try {
    body = await (await fetch(figure.dataset.points)).json();
  } catch (error) {
    return; // the server's image stays
  }
  if (!body.papers) return;
  const image = figure.querySelector("img");
  image.src = figure.dataset.field;
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = size;
  canvas.className = "map-canvas";
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", image.alt);
  image.after(canvas);
  const tip = document.createElement("div");
  tip.className = "map-tip";
  tip.hidden = true;
  canvas.after(tip);
  const chosen = figure.querySelector(".map-selection");
  const picker = document.createElement("select");
  picker.className = "map-colour";
  picker.setAttribute("aria-label", "Colour the papers by");
  ["topic", "year", "status"].forEach((mode) => picker.add(new Option("Colour by " + mode, mode)));
  // The legend (the topics' colours, from the server) is said before the picker, and holds
  // only while the papers are coloured by topic.
  const legend = figure.querySelector(".map-legend");
  if (legend) legend.before(" ", picker, " ");
  else figure.querySelector("figcaption").append(" ", picker);

  const at = (paper) => [margin + paper.x * inner, margin + (1 - paper.y) * inner];
  const years = body.papers.map((p) => p.year);
  const [first, last] = [Math.min(...years), Math.max(...years)];
  const statuses = [...new Set(body.papers.map((p) => p.status))];
  function colour(paper) {
    if (picker.value === "year") {
      const t = last > first ? (paper.year - first) / (last - first) : 1;
      return "hsl(" + Math.round(220 - 200 * t) + " 75% 45%)";
    }
    const index = picker.value === "status" ? statuses.indexOf(paper.status) : paper.colour;
    return body.palette[index % body.palette.length];
  }
  let box = null;
  function draw() {
    const pen = canvas.getContext("2d");
    pen.clearRect(0, 0, size, size);
    body.papers.forEach((paper) => {
      const [x, y] = at(paper);
      pen.fillStyle = colour(paper);
      pen.fillRect(x - 1, y - 1, 3, 3);
    });
    if (box) {
      pen.strokeStyle = getComputedStyle(figure).color;
      pen.strokeRect(box[0], box[1], box[2] - box[0], box[3] - box[1]);
    }
  }
  picker.addEventListener("change", () => {
    if (legend) legend.hidden = picker.value !== "topic";
    draw();
  });
  draw();

  const point = (event) => {
    const rect = canvas.getBoundingClientRect();
    return [(event.clientX - rect.left) * size / rect.width,
      (event.clientY - rect.top) * size / rect.height];
  };
  function nearest([x, y]) {
    let best = null;
    let distance = 36; // within 6 pixels
    body.papers.forEach((paper) => {
      const [px, py] = at(paper);
      const d = (px - x) ** 2 + (py - y) ** 2;
      if (d < distance) { best = paper; distance = d; }
    });
    return best;
  }
  const titles = new Map();
  async function title(paper) {
    if (!titles.has(paper.id)) {
      const found = await (await fetch("/api/papers/" + paper.id)).json();
      titles.set(paper.id, found.title || found.headline);
    }
    return titles.get(paper.id);
  }
  let start = null;
  canvas.addEventListener("mousedown", (event) => { start = point(event); });
  canvas.addEventListener("mousemove", async (event) => {
    const here = point(event);
    if (start) {
      box = [Math.min(start[0], here[0]), Math.min(start[1], here[1]),
        Math.max(start[0], here[0]), Math.max(start[1], here[1])];
      draw();
      return;
    }
    const paper = nearest(here);
    canvas.style.cursor = paper ? "pointer" : "crosshair";
    if (!paper) { tip.hidden = true; return; }
    tip.textContent = await title(paper);
    tip.style.left = (event.clientX - canvas.getBoundingClientRect().left + 12) + "px";
    tip.style.top = (event.clientY - canvas.getBoundingClientRect().top + 12) + "px";
    tip.hidden = false;
  });
  canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  canvas.addEventListener("mouseup", async (event) => {
    const end = point(event);
    const begun = start;
    start = null;
    if (!begun || Math.hypot(end[0] - begun[0], end[1] - begun[1]) < 4) {
      box = null;
      draw();
      const paper = nearest(end);
      if (paper) location.assign("/papers/" + paper.id);
      return;
    }
    // The box in map coordinates: x grows right, y up.
    const x0 = (box[0] - margin) / inner;
    const x1 = (box[2] - margin) / inner;
    const y0 = 1 - (box[3] - margin) / inner;
    const y1 = 1 - (box[1] - margin) / inner;
    const query = figure.dataset.points.replace("/api/map", "/api/map/box") +
      "&x0=" + x0.toFixed(4) + "&x1=" + x1.toFixed(4) + "&y0=" + y0.toFixed(4) + "&y1=" + y1.toFixed(4);
    const found = await (await fetch(query)).json();
    const heading = document.createElement("p");
    heading.textContent = found.total + " paper" + (found.total === 1 ? "" : "s") + " in the box" +
      (found.terms.length ? "; their most frequent keyphrases:" : ".");
    const terms = document.createElement("ul");
    terms.className = "tags";
    found.terms.forEach((term) => {
      const item = document.createElement("li");
      item.className = "tag";
      item.textContent = term.phrase + " (" + term.papers + ")";
      terms.append(item);
    });
    const list = document.createElement("ol");
    found.papers.forEach((paper) => {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = paper.url;
      link.textContent = paper.title;
      item.append(link);
      list.append(item);
    });
    chosen.replaceChildren(heading, terms, list);
    chosen.hidden = false;
  });
}
// A map in a closed <details> (search results, the saved list) is fetched when it is opened.
document.querySelectorAll("figure.paper-map").forEach((figure) => {
  const closed = figure.closest("details:not([open])");
  if (!closed) { drawMap(figure); return; }
  closed.addEventListener("toggle", () => drawMap(figure), { once: true });
});

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
