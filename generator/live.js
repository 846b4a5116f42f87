// Added by `sessionsite serve` to the pages it sends, never written into a site: follows the server's
// builds. A session page takes its new transcript in place (scroll, open blocks and filters kept); other
// pages reload.
(function () {
  "use strict";
  if (!window.EventSource || !window.fetch || !window.DOMParser) return;
  var seen = document.currentScript.getAttribute("data-generation");
  var busy = false, again = false;

  function swap(current, fresh, selector) {
    var old = current.querySelector(selector), next = fresh.querySelector(selector);
    if (old && next) old.replaceWith(document.adoptNode(next));
    return !!(old && next);
  }

  function update() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.pathname, { cache: "no-store" }).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (text) {
      if (text === null) return;
      var fresh = new DOMParser().parseFromString(text, "text/html");
      if (!document.querySelector(".transcript") || !fresh.querySelector(".transcript")) {
        location.reload();
        return;
      }
      var doc = document.documentElement;
      var following = window.innerHeight + window.scrollY >= doc.scrollHeight - 80;
      var open = {};
      document.querySelectorAll(".transcript details[id]").forEach(function (d) { open[d.id] = d.open; });
      swap(document, fresh, ".transcript");
      swap(document, fresh, ".facts");
      swap(document, fresh, ".session-side .outline");
      document.querySelectorAll(".transcript details[id]").forEach(function (d) {
        if (d.id in open) d.open = open[d.id];
      });
      document.title = fresh.title;
      if (following) window.scrollTo(0, doc.scrollHeight);
      document.dispatchEvent(new CustomEvent("sessionsite:updated"));
    }).catch(function () { /* the server stopped: the page stays as it is */ }).then(function () {
      busy = false;
      if (again) { again = false; update(); }
    });
  }

  // The server keeps a few streams open per browser and closes the oldest for a new one (a browser opens
  // only six connections to a host, and pages need some): a closed stream is opened again when this tab is
  // looked at, and says at once whether a build came in the meantime.
  var events = null;
  function listen() {
    events = new EventSource("/__sessionsite/events");
    events.onmessage = function (event) {
      if (event.data === seen) return;
      seen = event.data;
      update();
    };
    events.addEventListener("closed", function () {
      events.close();
      events = null;
    });
  }
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && events === null) listen();
  });
  listen();
})();
