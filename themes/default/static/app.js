// Progressive enhancement only: every page works without this file.
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
        var action = event.target && event.target.dataset ? event.target.dataset.action : null;
        if (!action) return;
        document.querySelectorAll(".transcript details").forEach(function (d) { d.open = action === "expand"; });
      });
    }
    var filter = document.querySelector(".filter");
    if (filter) {
      filter.hidden = false;
      var rows = Array.prototype.slice.call(document.querySelectorAll("table.sessions tbody tr"));
      filter.addEventListener("input", function () {
        var needle = filter.value.toLowerCase();
        rows.forEach(function (row) { row.hidden = needle && row.textContent.toLowerCase().indexOf(needle) < 0; });
      });
    }
    // Opening a link to a folded tool call unfolds it.
    function openTarget() {
      var id = decodeURIComponent(location.hash.slice(1));
      var node = id && document.getElementById(id);
      while (node) { if (node.tagName === "DETAILS") node.open = true; node = node.parentElement; }
    }
    window.addEventListener("hashchange", openTarget);
    openTarget();
  });
})();
