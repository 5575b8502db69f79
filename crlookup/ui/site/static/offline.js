// The static site's "Keep offline": registers the service worker (sw.js), saves the whole site
// into the browser's cache when asked, with its progress and size, and says when a newer site
// has replaced the copy. Pages read and link without it.
(function () {
  "use strict";
  var root = new URL("../", document.currentScript.src).href;
  var bar = document.getElementById("offline");
  var button = document.getElementById("keep");
  var said = document.getElementById("kept");
  if (!bar || !("serviceWorker" in navigator) || !window.caches) return;

  function mb(bytes) { return (bytes / 1e6).toFixed(1) + " MB"; }
  function say(text) { said.textContent = text; }

  bar.hidden = false;
  navigator.serviceWorker.register(root + "sw.js", { scope: root, updateViaCache: "none" });
  // What is kept: the button, "Kept offline", or "Updated offline copy" (on load, and when a
  // newer service worker takes over: its message may have gone before this page listened)
  function check() {
    return fetch(root + "offline.json").then(function (r) { return r.json(); }).then(shown)
      .catch(function () { /* (no offline.json: nothing to keep) */ });
  }
  check();
  navigator.serviceWorker.addEventListener("controllerchange", check);

  function shown(listed) {
    button.dataset.bytes = listed.bytes;
    // kept: a copy of this version, whole (offline.json is the last file it saves)
    var copy = { cacheName: "crlookup-" + listed.version };
    return caches.match(root + "offline.json", copy).then(function (kept) {
      if (!kept) {
        button.textContent = bar.dataset.keep.replace("{size}", mb(listed.bytes));
        return;
      }
      button.hidden = true;
      return caches.match(root + "updated.json", copy).then(function (updated) {
        if (updated) {
          updatedSaid(listed.version, listed.editions);
        } else if (bar.dataset.state !== "updated") {
          say(bar.dataset.kept.replace("{size}", mb(listed.bytes))
            .replace("{editions}", listed.editions.join(", ")));
        }
      });
    });
  }

  // "Updated offline copy", said once: by the page open when the copy was replaced, or by
  // the next one to load (the service worker leaves updated.json in the new copy for it)
  function updatedSaid(version, editions) {
    bar.dataset.state = "updated";
    say(bar.dataset.updated.replace("{editions}", editions.join(", ")));
    caches.open("crlookup-" + version).then(function (c) { return c.delete(root + "updated.json"); });
  }

  navigator.serviceWorker.addEventListener("message", function (event) {
    var m = event.data || {};
    if (m.kind === "progress") {
      say(bar.dataset.saving.replace("{done}", mb(m.done)).replace("{size}", mb(m.total)));
    } else if (m.kind === "kept") {
      button.hidden = true;
      bar.dataset.state = "kept";
      say(bar.dataset.kept.replace("{size}", mb(m.bytes)).replace("{editions}", m.editions.join(", ")));
    } else if (m.kind === "failed") {
      button.disabled = false;
      say(bar.dataset.failed.replace("{reason}", m.message));
    } else if (m.kind === "updated") {
      updatedSaid(m.version, m.editions);
    }
  });

  button.addEventListener("click", function () {
    button.disabled = true;
    say(bar.dataset.saving.replace("{done}", mb(0)).replace("{size}", mb(+button.dataset.bytes || 0)));
    navigator.serviceWorker.ready.then(function (registration) {
      registration.active.postMessage({ kind: "keep" });
    });
  });
})();
