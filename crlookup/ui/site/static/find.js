// The static site's search, in the browser and offline: a number typed ("702.19b", "IPG 2.3")
// goes straight to its page (numbers.json); words are searched with Pagefind (its index of
// the entries, crlookup.ui.site.search), Chinese words in its Chinese index; a word the site
// does not have (misspelt) is corrected to the nearest it has (words.json). Suggestions as
// you type in the box; the search page (search/?q=) lists them all. A site with the cards'
// pages (--cards) offers the cards whose name, or a face's, starts with the words (cards.json,
// online only). An address of serve's with ?edition= or ?parallel= goes to the page this site
// keeps for it.
(function () {
  "use strict";
  var root = new URL("../", document.currentScript.src).href;
  var box = document.getElementById("q");
  var list = document.getElementById("suggest");
  var page = document.getElementById("found");
  var numbers = null;
  var cardNames = null;
  var vocabulary = null;
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

  function loadCards() {  // (none on a site without them, or offline: they are online only)
    if (!document.documentElement.hasAttribute("data-cards")) return Promise.resolve([]);
    if (!cardNames) {
      cardNames = fetch(root + "cards.json").then(function (r) {
        return r.ok ? r.json() : [];
      }).then(function (names) {  // (each name's faces, lowercased once: [name, faces])
        return names.map(function (n) { return [n, n.toLowerCase().split(" // ")]; });
      }).catch(function () { cardNames = null; return []; });
    }
    return cardNames;
  }

  // A card's page, as the site keys it (crlookup.ui.site.addresses: Python's quoting, a
  // slash of the name as %252F)
  function cardPage(name) {
    var quoted = encodeURIComponent(name).replace(/[!'()*]/g, function (c) {
      return "%" + c.charCodeAt(0).toString(16).toUpperCase();
    }).replace(/%2C/g, ",").replace(/%2B/g, "+").replace(/%2F/g, "%252F");
    return root + "card/" + quoted + "/";
  }

  // The cards whose name, or one of its faces' names, starts with `words`: up to `limit`
  function cardsNamed(words, limit) {
    var wanted = words.toLowerCase();
    if (wanted.length < 3) return Promise.resolve([]);
    return loadCards().then(function (cards) {
      var out = [];
      for (var i = 0; i < cards.length && out.length < limit; i++) {
        if (cards[i][1].some(function (f) { return f.indexOf(wanted) === 0; })) {
          out.push({ href: cardPage(cards[i][0]), title: cards[i][0], excerpt: "" });
        }
      }
      return out;
    });
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

  function loadWords() {
    if (!vocabulary) {
      vocabulary = fetch(root + "words.json").then(function (r) { return r.json(); })
        .then(function (list) { return { list: list, known: new Set(list) }; })
        .catch(function () { vocabulary = null; return { list: [], known: new Set() }; });
    }
    return vocabulary;
  }

  // The edits between a and b (a letter added, dropped, changed, or two swapped), or more
  // than `most` as soon as it is sure to be
  function distance(a, b, most) {
    var before = [], row = [], i, j;
    var last = [];
    for (j = 0; j <= b.length; j++) row[j] = j;
    for (i = 1; i <= a.length; i++) {
      last = before; before = row; row = [i];
      var least = i;
      for (j = 1; j <= b.length; j++) {
        var cost = a[i - 1] === b[j - 1] ? 0 : 1;
        var d = Math.min(before[j] + 1, row[j - 1] + 1, before[j - 1] + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
          d = Math.min(d, last[j - 2] + 1);
        }
        row[j] = d;
        if (d < least) least = d;
      }
      if (least > most) return most + 1;
    }
    return row[b.length];
  }

  // `words` with each word the site does not have replaced by the nearest it has (one edit
  // for a word of up to six letters, two for a longer; the most frequent of the nearest),
  // or null if none is
  function corrected(words) {
    return loadWords().then(function (v) {
      var changed = false;
      var out = words.toLowerCase().split(/\s+/).map(function (word) {
        if (word.length < 4 || v.known.has(word) || !/^[a-z']+$/.test(word)) return word;
        var most = word.length > 6 ? 2 : 1, best = word, found = most + 1;
        for (var i = 0; i < v.list.length && found > 1; i++) {
          var k = v.list[i];
          if (Math.abs(k.length - word.length) > most) continue;
          var d = distance(word, k, found - 1);
          if (d < found) { found = d; best = k; }
        }
        changed = changed || best !== word;
        return best;
      });
      return changed ? out.join(" ") : null;
    });
  }

  // What Pagefind finds for `words`, a word the site does not have corrected first (it
  // would find nothing): [hits, the words searched]
  function searched(words, limit) {
    var asked = CJK.test(words) ? Promise.resolve(null) : corrected(words);
    return asked.then(function (fixed) {
      return pagefind(fixed || words).then(function (search) { return [search, fixed || words]; });
    }).then(function (both) {
      return Promise.all(both[0].results.slice(0, limit).map(function (r) { return r.data(); }))
        .then(function (hits) { return [hits, both[1]]; });
    });
  }

  // What `words` find: [{href, title, excerpt}], the number's page first; `.searched`, the
  // words Pagefind was asked (corrected, if they were)
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
      return Promise.all([cardsNamed(words, 3), searched(words, limit)]).then(function (both) {
        var out = first.concat(both[0], both[1][0].map(function (h) {
          return { href: h.url, title: h.meta.title, excerpt: h.excerpt };
        }));
        out.searched = both[1][1];
        return out;
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
    box.addEventListener("focus", function () { loadFinder(); loadWords(); }, { once: true });
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
        if (hits.searched && hits.searched !== words) {
          heading.textContent = heading.dataset.fixed.replace("{words}", hits.searched);
        }
        page.textContent = "";
        hits.forEach(function (hit) { page.appendChild(item(hit, true)); });
        document.getElementById("none").hidden = hits.length > 0;
        page.dispatchEvent(new CustomEvent("found", { detail: hits.length }));
      });
    }
  }
})();
