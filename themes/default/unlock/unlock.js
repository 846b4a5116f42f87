// Opens the pages of an encrypted archive (generator/output/encrypt.py seals them; every derivation here must
// agree with it byte for byte). WebCrypto alone: HKDF-SHA256 for the archive's keys, HMAC-SHA256 for file
// names, AES-256-GCM for each file, PBKDF2-HMAC-SHA256 for a passphrase.
//
// The key comes from the link's fragment (#key=…, which no browser sends to a server; it is taken out of the
// address bar at once), from this tab's sessionStorage (so that following a link opens the next page with no
// question), or from the form. The page it holds is shown in place of this one, its links made to point at
// the sealed files that hold their targets; its script (app.js) loads the search index and the anchor maps
// through `window.sessionsiteUnlocked`, which opens them here.
(function () {
  "use strict";
  var subtle = window.crypto && window.crypto.subtle;
  var encoder = new TextEncoder();
  var decoder = new TextDecoder();
  var INDEX_NAME = "index";
  var data, statusLine, form, opener = null, root = "";
  var waiting = {}, opened = {};

  function bytesOf(base64) {
    var binary = atob(base64.replace(/\s+/g, ""));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  function fromBase64url(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4) base64 += "=";
    return bytesOf(base64);
  }
  function toBase64url(bytes) {
    var binary = "";
    for (var i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function hex(buffer) {
    return Array.prototype.map.call(new Uint8Array(buffer), function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
  }

  function say(text, problem) {
    if (!statusLine) return;
    statusLine.textContent = text;
    statusLine.classList.toggle("lock-problem", !!problem);
  }

  // The archive's keys, from its master key (encrypt.Sealer).
  async function makeOpener(master) {
    var base = await subtle.importKey("raw", master, "HKDF", false, ["deriveBits"]);
    function derive(use, bits) {
      return subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(use) }, base, bits);
    }
    var id = hex(await derive("sessionsite/key-id", 64));
    var names = await subtle.importKey("raw", await derive("sessionsite/names", 256), { name: "HMAC", hash: "SHA-256" },
      false, ["sign"]);
    return {
      id: id,
      master: master,
      nameOf: async function (path) {
        if (path === "index.html") return INDEX_NAME;
        return hex(await subtle.sign("HMAC", names, encoder.encode(path))).slice(0, 32);
      },
      open: async function (name, sealed) {
        var key = await subtle.importKey("raw", await derive("sessionsite/file\u0000" + name, 256), "AES-GCM", false, ["decrypt"]);
        var plain = new Uint8Array(await subtle.decrypt({ name: "AES-GCM", iv: sealed.slice(0, 12),
          additionalData: encoder.encode("sessionsite/" + data.dataset.format + "\u0000" + name) }, key, sealed.slice(12)));
        var end = plain.indexOf(10);
        return { path: decoder.decode(plain.slice(0, end)), content: plain.slice(end + 1) };
      }
    };
  }

  async function fromPassphrase(passphrase) {
    var base = await subtle.importKey("raw", encoder.encode(passphrase), "PBKDF2", false, ["deriveBits"]);
    return new Uint8Array(await subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: bytesOf(data.dataset.salt),
      iterations: parseInt(data.dataset.iterations, 10) }, base, 256));
  }

  function slot() { return "sessionsite-key:" + data.dataset.keyId; }

  // A key from the link's fragment, taken out of the address bar (and so out of the history and bookmarks).
  function keyInLink() {
    var found = /(?:^#|&)key=([A-Za-z0-9_-]{43})(?:&|$)/.exec(location.hash);
    if (!location.hash || location.hash.indexOf("key=") < 0) return null;
    try { history.replaceState(null, "", location.href.split("#")[0]); } catch (e) { location.hash = ""; }
    return found ? found[1] : "";
  }

  // Tries a master key on this page: "wrong" (another archive's), "damaged", or "open" (and the page is shown).
  async function tryKey(master) {
    var candidate = await makeOpener(master);
    if (candidate.id !== data.dataset.keyId) return "wrong";
    var page;
    try {
      page = await candidate.open(data.dataset.name, bytesOf(data.textContent));
    } catch (e) {
      return "damaged";
    }
    opener = candidate;
    try { sessionStorage.setItem(slot(), toBase64url(master)); } catch (e) { /* storage off: ask on each page */ }
    await show(page);
    return "open";
  }

  function told(outcome, wrong) {
    if (outcome === "wrong") say(wrong, true);
    if (outcome === "damaged") {
      say("This page is damaged: it does not decrypt, although the key is right. Download or build the archive again.", true);
      if (form) form.hidden = true;
    }
    return outcome;
  }

  async function typed(secret) {
    secret = secret.trim();
    var inLink = /key=([A-Za-z0-9_-]{43})/.exec(secret);
    var key = inLink ? inLink[1] : (/^[A-Za-z0-9_-]{43}$/.test(secret) ? secret : null);
    if (key) {
      var outcome = await tryKey(fromBase64url(key));
      // A passphrase may look like a key (43 letters and digits): tried as one, then as what it is.
      if (outcome !== "wrong" || !data.dataset.salt) return told(outcome, "This key does not open this archive.");
    }
    if (!data.dataset.salt) {
      say("That is not a key: paste the link you were given, or the 43 characters after #key= in it.", true);
      return "wrong";
    }
    say("Deriving the key from the passphrase…");
    return told(await tryKey(await fromPassphrase(secret)), "This passphrase does not open this archive.");
  }

  // -- the page it holds, shown in place of this one -----------------------------------------------------

  // Where a link of the page held (at `path` in the plain site) points, inside the site: its path there.
  function inSite(value, path) {
    if (!value || value.charAt(0) === "#" || /^[a-z][a-z0-9+.-]*:/i.test(value)) return null;
    var url = new URL(value, root + path);
    if (url.href.indexOf(root) !== 0) return null;
    var inside = decodeURIComponent(url.pathname.slice(new URL(root).pathname.length));
    if (inside === "" || inside.slice(-1) === "/") inside += "index.html";
    return { path: inside, rest: url.search + url.hash };
  }

  async function pageAddress(path) { return (await opener.nameOf(path)) + ".html"; }

  var ATTRIBUTES = ["href", "src", "data-anchor-map", "data-search-index"];

  async function rewrite(doc, path) {
    var jobs = [];
    doc.querySelectorAll("[href], [src], [data-anchor-map], [data-search-index]").forEach(function (element) {
      ATTRIBUTES.forEach(function (attribute) {
        var target = element.hasAttribute(attribute) && inSite(element.getAttribute(attribute), path);
        if (!target) return;
        if (target.path.indexOf("assets/") === 0) { element.setAttribute(attribute, target.path + target.rest); return; }
        if (attribute.indexOf("data-") === 0) { element.setAttribute(attribute, root + target.path); return; }
        jobs.push(opener.nameOf(target.path).then(function (name) {
          if (/\.html$/.test(target.path)) { element.setAttribute(attribute, name + ".html" + target.rest); return; }
          // Another file (an image, a saved output, the Markdown): opened from its sealed script when asked for.
          element.setAttribute("data-sealed-file", name);
          element.setAttribute("data-sealed-as", target.path.split("/").pop());
          if (attribute === "src") element.removeAttribute("src"); else element.setAttribute(attribute, name + ".js");
        }));
      });
    });
    await Promise.all(jobs);
  }

  // The page held takes this one's place; its scripts (which a parsed document never runs) are run again, in
  // order, and then told the document is loaded, as they would have been.
  async function show(page) {
    var doc = new DOMParser().parseFromString(decoder.decode(page.content), "text/html");
    if (data.dataset.mode === "site") await rewrite(doc, page.path);
    var scripts = Array.prototype.map.call(doc.querySelectorAll("script"), function (old) {
      old.remove();
      return old;
    });
    document.replaceChild(document.adoptNode(doc.documentElement), document.documentElement);
    if (data.dataset.mode === "site") fileLinks();
    for (var i = 0; i < scripts.length; i += 1) await run(scripts[i]);
    document.dispatchEvent(new Event("DOMContentLoaded", { bubbles: true }));
  }

  function run(old) {
    return new Promise(function (resolve) {
      var script = document.createElement("script");
      if (old.hasAttribute("src")) {
        script.src = old.getAttribute("src");
        script.onload = script.onerror = function () { resolve(); };
      } else {
        script.textContent = old.textContent;
      }
      document.head.appendChild(script);
      if (!old.hasAttribute("src")) resolve();
    });
  }

  // -- files other than pages: sealed scripts, opened as data ----------------------------------------------

  window.sessionsiteSealed = function (name, sealed) {
    var callbacks = waiting[name];
    if (callbacks) { delete waiting[name]; callbacks[0](sealed); }
  };

  function sealedFile(name) {
    if (!opened[name]) {
      opened[name] = new Promise(function (resolve, reject) {
        waiting[name] = [resolve, reject];
        var script = document.createElement("script");
        script.src = root + name + ".js";
        script.onerror = function () { delete waiting[name]; reject(new Error(name + ".js cannot be loaded")); };
        document.head.appendChild(script);
      }).then(function (sealed) { return opener.open(name, bytesOf(sealed)); });
      opened[name].catch(function () { delete opened[name]; });
    }
    return opened[name];
  }

  var TYPES = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp",
    svg: "image/svg+xml", pdf: "application/pdf", json: "application/json" };
  function typeOf(name) { return TYPES[name.split(".").pop().toLowerCase()] || "text/plain;charset=utf-8"; }

  function fileLinks() {
    document.querySelectorAll("img[data-sealed-file]").forEach(function (image) {
      sealedFile(image.getAttribute("data-sealed-file")).then(function (file) {
        var reader = new FileReader();
        reader.onload = function () { image.src = reader.result; };
        reader.readAsDataURL(new Blob([file.content], { type: typeOf(file.path) }));
      });
    });
    document.querySelectorAll("a[data-sealed-file]").forEach(function (link) {
      link.addEventListener("click", function (event) {
        event.preventDefault();
        sealedFile(link.getAttribute("data-sealed-file")).then(function (file) {
          var save = document.createElement("a");
          save.href = URL.createObjectURL(new Blob([file.content], { type: typeOf(file.path) }));
          save.download = link.getAttribute("data-sealed-as");
          document.body.appendChild(save);
          save.click();
          save.remove();
          setTimeout(function () { URL.revokeObjectURL(save.href); }, 60000);
        });
      });
    });
  }

  // The search index and the anchor maps, for app.js: their scripts are data once opened, and what they hold
  // of page addresses is made the sealed pages' own.
  var CALL = /^\s*sessionsiteSearch\.(index|terms|docs)\(([\s\S]*)\);?\s*$/;
  var ANCHORS = /^\s*window\.sessionsiteAnchorPages\s*=\s*([\s\S]*?);?\s*$/;

  async function deliver(file) {
    var text = decoder.decode(file.content);
    var call = CALL.exec(text);
    if (call) {
      var args = JSON.parse("[" + call[2] + "]");
      if (call[1] === "docs") {
        args[1].pages = await Promise.all(args[1].pages.map(pageAddress));
      }
      window.sessionsiteSearch[call[1]].apply(null, args);
      return;
    }
    var anchors = ANCHORS.exec(text);
    if (!anchors) throw new Error(file.path + ": not a file the pages load");
    var pages = JSON.parse(anchors[1]);
    await Promise.all(Object.keys(pages).map(async function (anchor) {
      var target = inSite(pages[anchor], file.path);
      pages[anchor] = target ? await pageAddress(target.path) : "";
    }));
    window.sessionsiteAnchorPages = pages;
  }

  window.sessionsiteUnlocked = {
    // Loads the site file at `url` (as the page held names it) and hands it over, as its script would.
    load: function (url, done, failed) {
      var target = url.indexOf(root) === 0 ? inSite(url.slice(root.length), "index.html") : null;
      if (!target || !opener) { failed(); return; }
      opener.nameOf(target.path).then(sealedFile).then(deliver).then(done, function () { failed(); });
    }
  };

  // -- start ---------------------------------------------------------------------------------------------

  async function start() {
    data = document.getElementById("sealed");
    if (!data || data.type !== "application/octet-stream") return;
    statusLine = document.getElementById("lock-status");
    form = document.getElementById("lock-form");
    root = new URL(".", location.href).href;
    if (!subtle) {
      say("This page can only be decrypted in a secure context: open it over https://, from http://localhost, or " +
        "as a file on your computer.", true);
      return;
    }
    var linked = keyInLink();
    if (linked) {
      if (told(await tryKey(fromBase64url(linked)), "The key in this link does not open this archive.") !== "wrong") return;
    } else if (linked === "") {
      say("The link's key is cut short: copy the whole link.", true);
    } else {
      var kept = null;
      try { kept = sessionStorage.getItem(slot()); } catch (e) { /* storage off */ }
      if (kept) {
        say("Opening…");
        var outcome = await tryKey(fromBase64url(kept));
        if (outcome !== "wrong") { told(outcome, ""); return; }
        say("");
      }
    }
    // The link pasted into the address bar of this very page changes only its fragment: no new page loads.
    window.addEventListener("hashchange", function retry() {
      var key = keyInLink();
      if (!key || opener) return;
      tryKey(fromBase64url(key)).then(function (outcome) {
        if (told(outcome, "The key in this link does not open this archive.") === "open") {
          window.removeEventListener("hashchange", retry);
        }
      });
    });
    form.hidden = false;
    var input = form.querySelector("input");
    input.focus();
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = form.querySelector("button");
      button.disabled = true;
      typed(input.value).catch(function () {
        say("This page could not be opened.", true);
      }).finally(function () { button.disabled = false; });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    start().catch(function () { say("This page could not be opened.", true); });
  }, { once: true });
})();
