// crlookup's pages, enhanced: suggestions as you type in the box, and the copy buttons.
// Every page works without this script.
(function () {
  "use strict";
  var box = document.getElementById("q");
  var list = document.getElementById("suggest");
  var timer = null;
  var asked = 0;

  function clear() {
    list.hidden = true;
    list.textContent = "";
  }

  function show(hits, number) {
    list.textContent = "";
    hits.forEach(function (hit) {
      var item = document.createElement("li");
      var a = document.createElement("a");
      var target = hit.number ? hit.number : hit.title;
      var doc = hit.document && hit.document !== "cr" ? hit.document.toUpperCase() + " " : "";
      a.href = hit.number
        ? "/rule/" + encodeURIComponent(doc + hit.number)
        : "/define/" + encodeURIComponent(hit.title);
      a.textContent = (hit.number ? doc + target + " " : "") + (hit.title || hit.snippet || "");
      item.appendChild(a);
      list.appendChild(item);
    });
    list.hidden = hits.length === 0;
  }

  function suggest() {
    var words = box.value.trim();
    if (words.length < 3 || /^\d/.test(words) || /\?$/.test(words)) {
      clear();
      return;
    }
    var mine = ++asked;
    fetch("/v1/search?limit=6&q=" + encodeURIComponent(words))
      .then(function (r) { return r.ok ? r.json() : { hits: [] }; })
      .then(function (found) { if (mine === asked) show(found.hits || []); })
      .catch(clear);
  }

  if (box && list && !document.documentElement.hasAttribute("data-site")) {
    box.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(suggest, 200);
    });
    box.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown" && !list.hidden && list.firstChild) {
        e.preventDefault();
        list.firstChild.firstChild.focus();
      } else if (e.key === "Escape") {
        clear();
      }
    });
    list.addEventListener("keydown", function (e) {
      var at = document.activeElement.parentNode;
      if (e.key === "ArrowDown" && at.nextSibling) {
        e.preventDefault();
        at.nextSibling.firstChild.focus();
      } else if (e.key === "ArrowUp") {
        e.preventDefault();
        (at.previousSibling ? at.previousSibling.firstChild : box).focus();
      } else if (e.key === "Escape") {
        clear();
        box.focus();
      }
    });
  }

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var label = button.textContent;
    button.hidden = !navigator.clipboard;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
        button.textContent = "\u2713 " + label;
        setTimeout(function () { button.textContent = label; }, 2000);
      });
    });
  });
})();
