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
    var toolbar = document.querySelector(".toolbar");
    if (toolbar) {
      toolbar.hidden = false;
      toolbar.addEventListener("click", function (event) {
        var button = event.target && event.target.closest ? event.target.closest("button[data-action]") : null;
        if (!button) return;
        var open = button.dataset.action === "expand";
        document.querySelectorAll(".transcript details").forEach(function (d) { d.open = open; });
      });
    }
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
