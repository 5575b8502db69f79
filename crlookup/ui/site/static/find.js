// The static site's search, in the browser and offline: a number typed ("702.19b", "IPG 2.3")
// goes straight to its page (numbers.json); words are searched with Pagefind (its index of
// the entries, crlookup.ui.site.search), Chinese words in its Chinese index. Suggestions as
// you type in the box; the search page (search/?q=) lists them all. An address of serve's
// with ?edition= or ?parallel= goes to the page this site keeps for it.
(function () {
  "use strict";
  var root = new URL("../", document.currentScript.src).href;
  var box = document.getElementById("q");
  var list = document.getElementById("suggest");
  var page = document.getElementById("found");
  var numbers = null;
  var finder = null;
  var merged = {};
  var asked = 0;
  var CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
  var NUMBER = /^(?:(cr|mtr|ipg|jar)\s*)?(\d{1,3}(?:\.\d+[a-z]*)?|[a-z])\.?$/i;

  (function moved() {  // serve's ?edition= and ?parallel= are folders here
    var query = new URLSearchParams(location.search);
    var edition = query.get("edition"), parallel = query.get("parallel");
    if (!edition && !parallel) return;
    var rest = location.href.slice(root.length).split(/[?#]/)[0];
    var prefix = (parallel ? parallel.replace(",", "+") + "/" : "") +
      (edition && edition !== "latest" ? edition + "/" : "");
    location.replace(root + prefix + rest + (rest.endsWith("/") ? "" : "/"));
  })();

  function loadNumbers() {
    if (!numbers) {
      numbers = fetch(root + "numbers.json").then(function (r) { return r.json(); });
    }
    return numbers;
  }

  // A number as the site keys it: "ipg2.3" -> "IPG 2.3", "CR 702.19b." -> "702.19b"
  function numbered(text) {
    var m = NUMBER.exec(text.trim());
    if (!m) return null;
    var doc = (m[1] || "").toUpperCase();
    var n = /^[a-z]$/i.test(m[2]) ? m[2].toUpperCase() : m[2].toLowerCase();
    return doc && doc !== "CR" ? doc + " " + n : n;
  }

  function nearest(found, wanted) {
    var out = [];
    for (var cut = wanted.length; cut > 0 && out.length === 0; cut--) {
      var start = wanted.slice(0, cut);
      Object.keys(found).forEach(function (k) {
        if (k.indexOf(start) === 0 && out.length < 6) out.push(k);
      });
    }
    return out;
  }

  function loadFinder() {  // (on the box's focus: loaded while the first word is typed)
    if (!finder) {
      finder = import(root + "pagefind/pagefind.js").then(function (pf) {
        return pf.options({ basePath: root + "pagefind/", baseUrl: new URL(root).pathname,
          excerptLength: 24 }).then(function () { return pf.init(); })
          .then(function () { return pf; });
      });
    }
    return finder;
  }

  function pagefind(words) {
    return loadFinder().then(function (pf) {
      var lang = CJK.test(words) ? "zh" : null;
      if (lang && !merged[lang]) {
        merged[lang] = pf.mergeIndex(root + "pagefind/", { language: lang });
      }
      return Promise.resolve(lang ? merged[lang] : null).then(function () {
        return pf.search(words);
      });
    });
  }

  // What `words` find: [{href, title, excerpt}], the number's page first
  function find(words, limit) {
    var n = numbered(words);
    var byNumber = n ? loadNumbers().then(function (found) {
      if (found[n]) return [{ href: root + found[n], title: n, excerpt: "" }];
      return nearest(found, n).map(function (k) {
        return { href: root + found[k], title: k, excerpt: "" };
      });
    }) : Promise.resolve([]);
    return byNumber.then(function (first) {
      if (n && first.length) return first;
      return pagefind(words).then(function (search) {
        return Promise.all(search.results.slice(0, limit).map(function (r) { return r.data(); }))
          .then(function (hits) {
            return first.concat(hits.map(function (h) {
              return { href: h.url, title: h.meta.title, excerpt: h.excerpt };
            }));
          });
      });
    });
  }

  function item(hit, rich) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = hit.href;
    var strong = document.createElement(rich ? "strong" : "span");
    strong.textContent = hit.title;
    a.appendChild(strong);
    li.appendChild(a);
    if (hit.excerpt) {
      var snippet = document.createElement(rich ? "div" : "span");
      snippet.className = rich ? "snippet" : "meta";
      // (Pagefind's excerpt marks the words found with <mark>; nothing else is kept)
      snippet.textContent = "";
      hit.excerpt.split(/(<mark>.*?<\/mark>)/).forEach(function (part) {
        var m = /^<mark>(.*)<\/mark>$/.exec(part);
        var node = m ? document.createElement("mark") : document.createTextNode(text(part));
        if (m) node.textContent = text(m[1]);
        snippet.appendChild(node);
      });
      (rich ? li : a).appendChild(document.createTextNode(" "));
      (rich ? li : a).appendChild(snippet);
    }
    return li;
  }

  function text(html) {
    var t = document.createElement("textarea");
    t.innerHTML = html;
    return t.value;
  }

  function suggest() {
    var words = box.value.trim();
    var mine = ++asked;
    if (words.length < 2 && !numbered(words)) {
      list.hidden = true;
      return;
    }
    find(words, 6).then(function (hits) {
      if (mine !== asked) return;
      list.textContent = "";
      hits.slice(0, 6).forEach(function (hit) { list.appendChild(item(hit, false)); });
      list.hidden = hits.length === 0;
      list.dispatchEvent(new CustomEvent("found", { detail: hits.length }));
    });
  }

  if (box && list) {
    box.addEventListener("input", suggest);
    box.addEventListener("focus", loadFinder, { once: true });
    box.form.addEventListener("submit", function (e) {
      var n = numbered(box.value);
      if (!n) return;
      e.preventDefault();
      loadNumbers().then(function (found) {
        location.href = found[n] ? root + found[n] : root + "search/?q=" + encodeURIComponent(box.value);
      });
    });
    box.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown" && !list.hidden && list.firstChild) {
        e.preventDefault();
        list.firstChild.firstChild.focus();
      } else if (e.key === "Escape") {
        list.hidden = true;
      }
    });
  }

  if (page) {
    var words = new URLSearchParams(location.search).get("q") || "";
    var heading = document.getElementById("searched");
    if (words) {
      box.value = words;
      heading.textContent = heading.dataset.label + " " + words;
      find(words, 50).then(function (hits) {
        page.textContent = "";
        hits.forEach(function (hit) { page.appendChild(item(hit, true)); });
        document.getElementById("none").hidden = hits.length > 0;
        page.dispatchEvent(new CustomEvent("found", { detail: hits.length }));
      });
    }
  }
})();
