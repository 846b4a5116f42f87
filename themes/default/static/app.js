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
      scope.querySelectorAll("pre").forEach(function (pre) {
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
      var rows = Array.prototype.slice.call(document.querySelectorAll("table.sessions tbody tr"));
      filter.addEventListener("input", function () {
        var needle = filter.value.trim().toLowerCase();
        var shown = 0;
        rows.forEach(function (row) {
          row.hidden = !!needle && row.textContent.toLowerCase().indexOf(needle) < 0;
          if (!row.hidden) shown += 1;
        });
        if (empty) empty.hidden = shown > 0;
      });
    }
    // Opening a link to a folded tool call unfolds it.
    function openTarget() {
      var id;
      try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
      var node = id && document.getElementById(id);
      var map = document.querySelector("[data-anchor-map]");
      if (id && !node && map) {
        // A permalink to a later page of this session: ask the session's anchor map where it lives.
        var script = document.createElement("script");
        script.src = map.getAttribute("data-anchor-map");
        script.onload = function () {
          var page = window.sessionsiteAnchorPages && window.sessionsiteAnchorPages[id];
          if (page) location.replace(page + "#" + encodeURIComponent(id));
        };
        document.head.appendChild(script);
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
  var MAX_RESULTS = 50;
  var WORD = /[\p{L}\p{N}]+/gu;
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
    var script = document.createElement("script");
    script.src = base + "search/" + key + ".js";
    script.onerror = function () {
      var callbacks = waiting[key];
      waiting[key] = "failed";
      callbacks.forEach(function (cb) { cb(false); });
    };
    document.head.appendChild(script);
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

  // As generator.search.shard_of: a hash of the term's first two letters.
  function shardOf(term) {
    var value = 0;
    Array.from(term).slice(0, 2).forEach(function (c) { value = (Math.imul(value, 31) + c.codePointAt(0)) >>> 0; });
    return value % index.shards;
  }

  function documentsFor(word) {
    var found = new Map();
    (shards[shardOf(word)] || []).forEach(function (line) {
      var tab = line.indexOf("\t");
      var term = line.slice(0, tab);
      if (term.lastIndexOf(word, 0) !== 0) return;
      var weight = term.length === word.length ? 2 : 1;
      // file:gaps;file:gaps… (generator.search.write_index): a file's place in index.js, then the
      // term's documents in that file as gaps.
      line.slice(tab + 1).split(";").forEach(function (part) {
        var colon = part.indexOf(":");
        var number = firstDocument[parseInt(part.slice(0, colon), 36)];
        part.slice(colon + 1).split(",").forEach(function (gap) {
          number += parseInt(gap, 36);
          if ((found.get(number) || 0) < weight) found.set(number, weight);
        });
      });
    });
    return found;
  }

  function locate(number) {
    var first = 0;
    for (var i = 0; i < index.files.length; i += 1) {
      var count = index.files[i][1];
      if (number < first + count) {
        var row = number - first;
        return { name: index.files[i][0] + "-" + Math.floor(row / index.per_store), row: row % index.per_store };
      }
      first += count;
    }
    return null;
  }

  var latest = 0;
  function run(query) {
    var asked = ++latest;
    var terms = words(query);
    if (!terms.length) { show(query, null); return; }
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
        var ranked = Array.from(scores.keys()).sort(function (a, b) {
          return scores.get(b) - scores.get(a) || a - b;
        });
        var top = ranked.slice(0, MAX_RESULTS).map(locate).filter(Boolean);
        var files = top.map(function (hit) { return "docs/" + hit.name; })
          .filter(function (key, i, all) { return all.indexOf(key) === i; });
        needAll(files, function (ok) {
          if (asked !== latest) return;
          if (!ok) { show(query, "error"); return; }
          show(query, { total: ranked.length, hits: top, terms: terms });
        });
      });
    });
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  // The snippet around the first word found, with the words marked; built from text nodes only, since
  // it is transcript text.
  function snippet(text, terms) {
    var lower = text.toLowerCase(), at = -1;
    terms.forEach(function (t) { var i = lower.indexOf(t); if (i >= 0 && (at < 0 || i < at)) at = i; });
    var start = Math.max(0, at - 60), end = Math.min(text.length, start + 220);
    var part = (start > 0 ? "…" : "") + text.slice(start, end) + (end < text.length ? "…" : "");
    var node = element("span", "result-snippet");
    var pattern = new RegExp("(" + terms.map(function (t) {
      return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }).join("|") + ")", "giu");
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

  var KIND = { session: "Session", prompt: "Prompt", reply: "Reply", plan: "Plan" };

  function show(query, results) {
    panel.textContent = "";
    if (results === null) { panel.hidden = true; return; }
    panel.hidden = false;
    var head = element("p", "search-status");
    head.setAttribute("role", "status");
    if (results === "error") {
      head.textContent = "The search index could not be loaded.";
      panel.appendChild(head);
      return;
    }
    head.textContent = results.total === 0 ? "No results for “" + query + "”."
      : results.total + (results.total === 1 ? " result" : " results") + " for “" + query + "”"
        + (results.total > results.hits.length ? ", the best " + results.hits.length + " shown." : ".");
    panel.appendChild(head);
    if (!results.total) return;
    var list = element("ol", "search-list");
    results.hits.forEach(function (hit) {
      var store = stores[hit.name], row = store && store.docs[hit.row];
      if (!row) return;
      var item = element("li");
      var link = element("a", "result");
      link.href = base + row[0];
      link.appendChild(element("span", "result-title", store.titles[row[1]]));
      var time = row[3] ? " · " + row[3].slice(0, 10) + " " + row[3].slice(11, 16) : "";
      link.appendChild(element("span", "result-kind", (KIND[row[2]] || row[2]) + time));
      if (row[4]) link.appendChild(snippet(row[4], results.terms));
      item.appendChild(link);
      list.appendChild(item);
    });
    panel.appendChild(list);
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
      run(input.value);
      var first = panel.querySelector("a.result");
      if (first) first.focus();
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
    var box = document.querySelector(".view-box");
    if (!box) return;
    box.hidden = false;
    box.querySelectorAll("[data-only-with]").forEach(function (label) {
      label.hidden = !document.querySelector(label.getAttribute("data-only-with"));
    });
    var boxes = box.querySelectorAll("input[data-show]");
    boxes.forEach(function (input) {
      input.checked = hidden.indexOf(input.dataset.show) < 0;
      input.addEventListener("change", function () {
        hidden = [];
        boxes.forEach(function (each) { if (!each.checked) hidden.push(each.dataset.show); });
        if (hidden.length) root.dataset.hide = hidden.join(" "); else delete root.dataset.hide;
        try { localStorage.setItem(KEY, hidden.join(" ")); } catch (e) { /* ignore */ }
      });
    });
  });
})();
