// Loads one of the site's data scripts (the search index, an anchor map). In an encrypted archive they are
// sealed, and the unlocking script (unlock/unlock.js) opens them and hands their data over as they would.
function sessionsiteLoadScript(src, onload, onerror) {
  "use strict";
  if (window.sessionsiteUnlocked) { window.sessionsiteUnlocked.load(src, onload, onerror); return; }
  var script = document.createElement("script");
  script.src = src;
  script.onload = onload;
  script.onerror = onerror;
  document.head.appendChild(script);
}

// Progressive enhancement only: every page works without this file.
// Loaded without `defer` so a saved theme applies before the first paint.
(function () {
  "use strict";
  var root = document.documentElement;
  var stored = null;
  try { stored = localStorage.getItem("sessionsite-theme"); } catch (e) { /* file:// or privacy mode */ }
  if (stored === "light" || stored === "dark") root.dataset.theme = stored;

  document.addEventListener("DOMContentLoaded", function () {
    var toggle = document.querySelector(".theme-toggle");
    if (toggle) {
      toggle.hidden = false;
      toggle.addEventListener("click", function () {
        var dark = root.dataset.theme ? root.dataset.theme === "dark"
          : window.matchMedia("(prefers-color-scheme: dark)").matches;
        root.dataset.theme = dark ? "light" : "dark";
        try { localStorage.setItem("sessionsite-theme", root.dataset.theme); } catch (e) { /* ignore */ }
      });
    }
    // A code block or output that scrolls takes the focus, so that it can be scrolled with the keyboard
    // too. Only blocks that scroll: a tab stop on every block would make the page long to tab through.
    function focusableScrollers(scope) {
      // Code, and a chart wider than a phone's screen: what scrolls can be scrolled from the keyboard.
      scope.querySelectorAll("pre, .chart-pair > div").forEach(function (pre) {
        if (pre.scrollWidth > pre.clientWidth || pre.scrollHeight > pre.clientHeight) pre.tabIndex = 0;
      });
    }
    focusableScrollers(document);
    // "toggle" does not bubble; it is seen on its way down. Blocks are measured once they are open.
    document.addEventListener("toggle", function (event) {
      if (event.target.open) focusableScrollers(event.target);
    }, true);
    // A bundle holds several sessions, each with its own toolbar: each folds its own session.
    document.querySelectorAll(".toolbar").forEach(function (toolbar) {
      toolbar.hidden = false;
      toolbar.addEventListener("click", function (event) {
        var button = event.target && event.target.closest ? event.target.closest("button[data-action]") : null;
        if (!button) return;
        var open = button.dataset.action === "expand";
        var scope = toolbar.closest(".bundle-session") || document;
        scope.querySelectorAll(".transcript details").forEach(function (d) { d.open = open; });
        if (open) focusableScrollers(scope);
      });
    });
    var filter = document.querySelector(".filter");
    if (filter) {
      filter.hidden = false;
      var empty = document.querySelector(".filter-empty");
      var agentFilter = document.querySelector(".agent-filter");
      var rows = Array.prototype.slice.call(document.querySelectorAll("table.sessions tbody tr"));
      var refilterSessions = function () {
        var needle = filter.value.trim().toLowerCase();
        var agent = agentFilter ? agentFilter.value : "";
        var shown = 0;
        rows.forEach(function (row) {
          // A chain's heading row names no agent: it stays while any of its sessions does.
          var rowAgent = row.getAttribute("data-agent");
          row.hidden = (!!needle && row.textContent.toLowerCase().indexOf(needle) < 0)
            || (!!agent && rowAgent !== null && rowAgent !== agent);
          if (!row.hidden && rowAgent !== null) shown += 1;
        });
        if (empty) empty.hidden = shown > 0;
      };
      filter.addEventListener("input", refilterSessions);
      if (agentFilter) {
        agentFilter.hidden = false;
        agentFilter.addEventListener("change", refilterSessions);
      }
    }
    // Opening a link to a folded tool call unfolds it.
    function openTarget() {
      var id;
      try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
      var node = id && document.getElementById(id);
      var map = document.querySelector("[data-anchor-map]");
      if (id && !node && map) {
        // A permalink to a later page of this session: ask the session's anchor map where it lives.
        sessionsiteLoadScript(map.getAttribute("data-anchor-map"), function () {
          var page = window.sessionsiteAnchorPages && window.sessionsiteAnchorPages[id];
          if (page) location.replace(page + "#" + encodeURIComponent(id));
        }, function () {});
        return;
      }
      var target = node;
      while (node) { if (node.tagName === "DETAILS") node.open = true; node = node.parentElement; }
      if (target && target.scrollIntoView) target.scrollIntoView();
    }
    window.addEventListener("hashchange", openTarget);
    if (location.hash) openTarget();
  });
})();

// Search over the whole archive (generator/search.py writes the index). Every index file is a script
// that hands its data to window.sessionsiteSearch: scripts load from file:// where fetch is refused.
(function () {
  "use strict";
  var PAGE_SIZE = 20;
  var WORD = /[\p{L}\p{N}]+/gu;
  // generator.search.KINDS, by the letter index.js gives each document; the first four rank above the rest.
  var LABEL = { session: "Session title", prompt: "Prompt", reply: "Reply", plan: "Plan", thinking: "Thinking",
    command: "Command", path: "File path", code: "Code", output: "Tool output" };
  var FIRST_TIER = 4;
  var form, input, panel, base, index = null, firstDocument = [];
  var shards = {}, stores = {}, waiting = {};

  window.sessionsiteSearch = {
    index: function (meta) {
      index = meta;
      var first = 0;
      firstDocument = meta.files.map(function (file) { var at = first; first += file[1]; return at; });
      loaded("index");
    },
    terms: function (number, text) { shards[number] = text.split("\n"); loaded("terms/" + number); },
    docs: function (name, store) { stores[name] = store; loaded("docs/" + name); }
  };

  function loaded(key) {
    var callbacks = waiting[key] || [];
    waiting[key] = "done";
    callbacks.forEach(function (callback) { callback(true); });
  }

  // Loads search/<key>.js once; calls back with false when it cannot be loaded.
  function need(key, callback) {
    if (waiting[key] === "done") { callback(true); return; }
    if (waiting[key] === "failed") { callback(false); return; }
    if (waiting[key]) { waiting[key].push(callback); return; }
    waiting[key] = [callback];
    sessionsiteLoadScript(base + "search/" + key + ".js", function () {}, function () {
      var callbacks = waiting[key];
      waiting[key] = "failed";
      callbacks.forEach(function (cb) { cb(false); });
    });
  }

  function needAll(keys, callback) {
    var left = keys.length, ok = true;
    if (!left) { callback(true); return; }
    keys.forEach(function (key) {
      need(key, function (success) { ok = ok && success; left -= 1; if (!left) callback(ok); });
    });
  }

  function words(text) {
    return (text.toLowerCase().match(WORD) || []).filter(function (w) { return w.length >= 2; })
      .map(function (w) { return Array.from(w).slice(0, 32).join(""); });
  }

  // As generator.search.shard_of: a hash of the term's first letters (three, or two for a short term).
  function shardOf(term) {
    var value = 0;
    Array.from(term).slice(0, index.prefix).forEach(function (c) {
      value = (Math.imul(value, 31) + c.codePointAt(0)) >>> 0;
    });
    return value % index.shards;
  }

  // The documents holding the word: as the start of a term, or, for a word shorter than the shard prefix
  // (whose longer terms are in other shards), as a whole term.
  function documentsFor(word) {
    var found = new Map();
    var whole = Array.from(word).length < index.prefix;
    // Lines `:file` (a file's place in index.js) and then that file's `term<TAB>gaps` lines
    // (generator.search.write_index): the term's documents in that file as gaps.
    var first = 0;
    (shards[shardOf(word)] || []).forEach(function (line) {
      if (line.charAt(0) === ":") { first = firstDocument[parseInt(line.slice(1), 36)]; return; }
      var tab = line.indexOf("\t");
      if (tab < 0) return;
      var term = line.slice(0, tab);
      if (whole ? term !== word : term.lastIndexOf(word, 0) !== 0) return;
      var weight = term.length === word.length ? 2 : 1;
      var number = first;
      line.slice(tab + 1).split(",").forEach(function (gap) {
        number += parseInt(gap, 36);
        if ((found.get(number) || 0) < weight) found.set(number, weight);
      });
    });
    return found;
  }

  // Which file holds document `number`, by a binary search over the files' first documents.
  function fileOf(number) {
    var low = 0, high = firstDocument.length - 1;
    while (low < high) {
      var middle = (low + high + 1) >> 1;
      if (firstDocument[middle] <= number) low = middle; else high = middle - 1;
    }
    return low;
  }

  function describe(number, score) {
    var file = fileOf(number), row = number - firstDocument[file], entry = index.files[file];
    var kind = parseInt(entry[3].charAt(row), 36);
    return { number: number, score: score, kind: index.kinds[kind] || "", tier: kind < FIRST_TIER ? 0 : 1,
      project: index.projects[entry[2]] || "",
      store: entry[0] + "-" + Math.floor(row / index.per_store), row: row % index.per_store };
  }

  var latest = 0, current = null, focusWhenShown = false;
  function run(query) {
    var asked = ++latest;
    var terms = words(query);
    if (!terms.length) { current = null; focusWhenShown = false; show(query, null); return; }
    need("index", function (ok) {
      if (asked !== latest) return;
      if (!ok || !index) { show(query, "error"); return; }
      var keys = terms.map(function (t) { return "terms/" + shardOf(t); });
      needAll(keys, function (ok) {
        if (asked !== latest) return;
        if (!ok) { show(query, "error"); return; }
        var scores = null;
        terms.forEach(function (term) {
          var found = documentsFor(term), next = new Map();
          found.forEach(function (weight, number) {
            if (scores === null) next.set(number, weight);
            else if (scores.has(number)) next.set(number, scores.get(number) + weight);
          });
          scores = next;
        });
        // Prompts, replies, plans and titles first, then commands, paths and tool output; within each,
        // whole words before beginnings of words, then in the order of the archive.
        var ranked = [];
        scores.forEach(function (score, number) { ranked.push(describe(number, score)); });
        ranked.sort(function (a, b) { return a.tier - b.tier || b.score - a.score || a.number - b.number; });
        current = { query: query, terms: terms, ranked: ranked, asked: asked };
        show(query, current);
      });
    });
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function escapeRegExp(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  // Of a result's excerpt, the part around the first word found, with the words found marked. Built
  // from text nodes only: it is transcript text.
  function snippet(text, terms) {
    var pattern = new RegExp("(?<![\\p{L}\\p{N}])(" + terms.map(escapeRegExp).join("|") + ")", "giu");
    var first = pattern.exec(text), at = first ? first.index : 0;
    var start = Math.max(0, at - 90), end = Math.min(text.length, start + 260);
    if (start > 0) { var space = text.indexOf(" ", start); if (space >= 0 && space < at) start = space + 1; }
    if (end < text.length) { var back = text.lastIndexOf(" ", end); if (back > at) end = back; }
    var part = text.slice(start, end);
    if (start > 0 && part.lastIndexOf("…", 0) !== 0) part = "… " + part;
    if (end < text.length && part.slice(-1) !== "…") part += " …";
    var node = element("span", "result-snippet");
    pattern.lastIndex = 0;
    var last = 0, match;
    while ((match = pattern.exec(part)) !== null) {
      node.appendChild(document.createTextNode(part.slice(last, match.index)));
      node.appendChild(element("mark", "", match[0]));
      last = match.index + match[0].length;
      if (!match[0].length) pattern.lastIndex += 1;
    }
    node.appendChild(document.createTextNode(part.slice(last)));
    return node;
  }

  function projectName(path) {
    var parts = path.split(/[\\/]/).filter(Boolean);
    return parts.length ? parts[parts.length - 1] : path || "(no project)";
  }

  // A <select> of the values the results have, each with its count; "" is all of them.
  function picker(name, label, values, describeValue) {
    var wrapper = element("label", "search-filter");
    wrapper.appendChild(element("span", "", label + " "));
    var select = element("select");
    select.name = name;
    var counts = new Map();
    values.forEach(function (value) { counts.set(value, (counts.get(value) || 0) + 1); });
    var all = element("option", "", "All (" + values.length + ")");
    all.value = "";
    select.appendChild(all);
    Array.from(counts.keys()).sort(function (a, b) { return describeValue(a).localeCompare(describeValue(b)); })
      .forEach(function (value) {
        var option = element("option", "", describeValue(value) + " (" + counts.get(value) + ")");
        option.value = value;
        select.appendChild(option);
      });
    wrapper.appendChild(select);
    return wrapper;
  }

  function show(query, results) {
    panel.textContent = "";
    if (results === null) { panel.hidden = true; return; }
    panel.hidden = false;
    var head = element("p", "search-status");
    head.setAttribute("role", "status");
    panel.appendChild(head);
    if (results === "error" || !results.ranked.length) {
      focusWhenShown = false;
      head.textContent = results === "error" ? "The search index could not be loaded." : "No results for “" + query + "”.";
      if (results !== "error" && index && index.searched) {
        // generator.render.search.SEARCHED_CHARACTERS: what a query can find of a text of megabytes.
        panel.appendChild(element("p", "search-help", "Of a text of megabytes (a tool’s output, a pasted log), the first "
          + index.searched.toLocaleString("en") + " characters are searched."));
      }
      return;
    }
    var filters = element("div", "search-filters");
    filters.appendChild(picker("kind", "Kind", results.ranked.map(function (hit) { return hit.kind; }),
      function (kind) { return LABEL[kind] || kind; }));
    filters.appendChild(picker("project", "Project", results.ranked.map(function (hit) { return hit.project; }),
      projectName));
    panel.appendChild(filters);
    var list = element("ol", "search-list");
    panel.appendChild(list);
    var more = element("button", "search-more", "Show more results");
    more.type = "button";
    more.hidden = true;
    panel.appendChild(more);
    var kindSelect = filters.querySelector("select[name=kind]"), projectSelect = filters.querySelector("select[name=project]");
    var chosen = [], shown = 0;

    function refilter() {
      chosen = results.ranked.filter(function (hit) {
        return (!kindSelect.value || hit.kind === kindSelect.value)
          && (!projectSelect.value || hit.project === projectSelect.value);
      });
      list.textContent = "";
      shown = 0;
      head.textContent = chosen.length + (chosen.length === 1 ? " result" : " results") + " for “" + query + "”"
        + (chosen.length < results.ranked.length ? " (filtered from " + results.ranked.length + ")" : "") + ".";
      grow(false);
    }

    // The next results: their document stores are loaded for them only.
    function grow(focusFirst) {
      var batch = chosen.slice(shown, shown + PAGE_SIZE);
      shown += batch.length;
      var keys = batch.map(function (hit) { return "docs/" + hit.store; })
        .filter(function (key, i, all) { return all.indexOf(key) === i; });
      needAll(keys, function (ok) {
        if (results.asked !== latest) return;
        if (!ok) { head.textContent = "The search index could not be loaded."; return; }
        var firstLink = null;
        batch.forEach(function (hit) {
          var store = stores[hit.store], row = store && store.docs[hit.row];
          if (!row) return;
          var item = element("li");
          var link = element("a", "result");
          link.href = base + store.pages[row[0]] + (row[1] ? "#" + row[1] : "");
          link.appendChild(element("span", "result-title", store.titles[row[2]]));
          var facts = element("span", "result-facts");
          facts.appendChild(element("span", "result-kind result-kind-" + hit.kind, LABEL[hit.kind] || hit.kind));
          var project = element("span", "result-project", projectName(hit.project));
          project.title = hit.project;
          facts.appendChild(document.createTextNode(" · "));
          facts.appendChild(project);
          if (row[3]) facts.appendChild(document.createTextNode(" · " + row[3].slice(0, 10) + " " + row[3].slice(11, 16)));
          link.appendChild(facts);
          if (row[4]) link.appendChild(snippet(row[4], results.terms));
          item.appendChild(link);
          list.appendChild(item);
          firstLink = firstLink || link;
        });
        more.hidden = shown >= chosen.length;
        if ((focusFirst || focusWhenShown) && firstLink) firstLink.focus();
        focusWhenShown = false;
      });
    }

    kindSelect.addEventListener("change", refilter);
    projectSelect.addEventListener("change", refilter);
    more.addEventListener("click", function () { grow(true); });
    refilter();
  }

  document.addEventListener("DOMContentLoaded", function () {
    form = document.querySelector(".site-search");
    panel = document.getElementById("search-results");
    if (!form || !panel) return;
    input = form.querySelector("input[type=search]");
    var indexUrl = form.getAttribute("data-search-index");
    base = indexUrl.slice(0, indexUrl.length - "search/index.js".length);
    form.hidden = false;
    var timer = 0;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { run(input.value); }, 120);
    });
    input.addEventListener("focus", function () { need("index", function () {}); }, { once: true });
    input.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { input.value = ""; run(""); }
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      clearTimeout(timer);
      var first = current && current.query === input.value && panel.querySelector("a.result");
      if (first) { first.focus(); return; }
      // Enter before the results came: the first one takes the focus when it comes.
      focusWhenShown = true;
      run(input.value);
    });
    var asked = new URLSearchParams(location.search).get("q");
    if (asked) { input.value = asked; run(asked); }
  });
})();

// What a session page shows: tool calls, thinking, subagent calls, hidden entries. The choice is kept like
// the theme (it applies before the first paint, from the root element) and only hides: with script off,
// or with every box ticked, the page shows all it holds.
(function () {
  "use strict";
  var KEY = "sessionsite-hide";
  var KINDS = ["tools", "thinking", "subagents", "hidden"];
  var root = document.documentElement;
  var hidden = [];
  try { hidden = (localStorage.getItem(KEY) || "").split(" "); } catch (e) { /* file:// or privacy mode */ }
  hidden = hidden.filter(function (kind) { return KINDS.indexOf(kind) >= 0; });
  if (hidden.length) root.dataset.hide = hidden.join(" ");

  document.addEventListener("DOMContentLoaded", function () {
    // On a phone the commits a session made start folded: its first prompt is then on the first screen.
    if (window.matchMedia && window.matchMedia("(max-width: 600px)").matches) {
      document.querySelectorAll("details.commits-made[open]").forEach(function (list) { list.open = false; });
    }
    // A bundle holds one box per session: every box is shown, and they all say the same.
    var viewBoxes = document.querySelectorAll(".view-box");
    if (!viewBoxes.length) return;
    viewBoxes.forEach(function (box) {
      box.hidden = false;
      box.querySelectorAll("[data-only-with]").forEach(function (label) {
        label.hidden = !document.querySelector(label.getAttribute("data-only-with"));
      });
    });
    var boxes = document.querySelectorAll(".view-box input[data-show]");
    boxes.forEach(function (input) {
      input.checked = hidden.indexOf(input.dataset.show) < 0;
      input.addEventListener("change", function () {
        boxes.forEach(function (each) { if (each.dataset.show === input.dataset.show) each.checked = input.checked; });
        hidden = [];
        boxes.forEach(function (each) {
          if (!each.checked && hidden.indexOf(each.dataset.show) < 0) hidden.push(each.dataset.show);
        });
        if (hidden.length) root.dataset.hide = hidden.join(" "); else delete root.dataset.hide;
        try { localStorage.setItem(KEY, hidden.join(" ")); } catch (e) { /* ignore */ }
      });
    });
  });
})();
