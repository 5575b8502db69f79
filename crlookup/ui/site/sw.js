// crlookup's service worker: the offline copy of the site (crlookup.ui.site.offline).
// "Keep offline" (offline.js) asks it to save every pack into a cache of this version; once
// saved, every page, search and file of the site is answered from that cache, network or
// not. A newer site (another version of this file) saves its own copy while online, then
// takes over and tells the pages.
"use strict";
var VERSION = "__VERSION__";
var NAME = "crlookup-" + VERSION;
var ROOT = new URL("./", self.location).href;
var TYPES = { html: "text/html; charset=utf-8", css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8", json: "application/json", wasm: "application/wasm",
  png: "image/png", webmanifest: "application/manifest+json" };

function typeOf(path) {
  if (path === "" || path.endsWith("/")) return TYPES.html;
  var ext = path.split(".").pop();
  return TYPES[ext] || "application/octet-stream";
}

function tell(message) {
  return self.clients.matchAll({ includeUncontrolled: true }).then(function (all) {
    all.forEach(function (c) { c.postMessage(message); });
  });
}

// The records of a pack (offline.py): [length][path][length][bytes], after gunzip.
async function unpackInto(cache, response) {
  var reader = response.body.pipeThrough(new DecompressionStream("gzip")).getReader();
  var buffer = new Uint8Array(0);
  var puts = [];
  var decoder = new TextDecoder();
  for (;;) {
    var step = await reader.read();
    if (step.done) break;
    var joined = new Uint8Array(buffer.length + step.value.length);
    joined.set(buffer);
    joined.set(step.value, buffer.length);
    buffer = joined;
    var at = 0;
    for (;;) {
      if (buffer.length - at < 4) break;
      var view = new DataView(buffer.buffer, buffer.byteOffset + at);
      var n = view.getUint32(0);
      if (buffer.length - at < 8 + n) break;
      var m = new DataView(buffer.buffer, buffer.byteOffset + at + 4 + n).getUint32(0);
      if (buffer.length - at < 8 + n + m) break;
      var path = decoder.decode(buffer.subarray(at + 4, at + 4 + n));
      var body = buffer.slice(at + 8 + n, at + 8 + n + m);
      puts.push(cache.put(new URL(path, ROOT).href, new Response(body, {
        headers: { "Content-Type": typeOf(path), "Content-Length": String(m) } })));
      at += 8 + n + m;
    }
    buffer = buffer.slice(at);
  }
  await Promise.all(puts);
}

async function keep() {
  var listed = await (await fetch(ROOT + "offline.json", { cache: "no-cache" })).json();
  if (listed.version !== VERSION) throw new Error("the site changed while saving it");
  var cache = await caches.open(NAME);
  var done = 0;
  await tell({ kind: "progress", done: 0, total: listed.bytes });
  for (var i = 0; i < listed.packs.length; i++) {
    var pack = listed.packs[i];
    var response = await fetch(ROOT + pack.file);
    if (!response.ok) throw new Error(pack.file + ": " + response.status);
    await unpackInto(cache, response);
    done += pack.bytes;
    await tell({ kind: "progress", done: done, total: listed.bytes });
  }
  await cache.put(ROOT + "offline.json", new Response(JSON.stringify(listed), {
    headers: { "Content-Type": "application/json" } }));
  return listed;
}

async function keptBefore() {
  var names = await caches.keys();
  return names.filter(function (n) { return n.indexOf("crlookup-") === 0 && n !== NAME; });
}

self.addEventListener("install", function (event) {
  event.waitUntil((async function () {
    var older = await keptBefore();
    if (older.length) await keep();  // (a kept copy: the new one is saved before it goes)
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", function (event) {
  event.waitUntil((async function () {
    var older = await keptBefore();
    await Promise.all(older.map(function (n) { return caches.delete(n); }));
    var listed = null;
    if (older.length) {  // (said by a page open now, or by the next one to load: updated.json,
      // there before a page taken over below looks for it)
      var cache = await caches.open(NAME);
      listed = await (await cache.match(ROOT + "offline.json")).json();
      await cache.put(ROOT + "updated.json", new Response(JSON.stringify(listed.editions), {
        headers: { "Content-Type": "application/json" } }));
    }
    await self.clients.claim();
    if (listed) await tell({ kind: "updated", version: VERSION, editions: listed.editions });
  })());
});

self.addEventListener("message", function (event) {
  if (!event.data || event.data.kind !== "keep") return;
  event.waitUntil(keep().then(function (listed) {
    return tell({ kind: "kept", bytes: listed.bytes, editions: listed.editions });
  }, function (error) {
    return caches.delete(NAME).then(function () {
      return tell({ kind: "failed", message: String(error && error.message || error) });
    });
  }));
});

self.addEventListener("fetch", function (event) {
  var url = new URL(event.request.url);
  if (event.request.method !== "GET" || !url.href.startsWith(ROOT)) return;
  var path = url.href.slice(ROOT.length).split(/[?#]/)[0];
  if (path === "sw.js") return;
  event.respondWith((async function () {
    // (caches.match with a cacheName makes no cache: caches.open would, and an empty cache of
    // this version would read as a kept copy)
    var kept = { cacheName: NAME };
    var key = ROOT + path;
    var last = path.split("/").pop();
    if (event.request.mode === "navigate" && last && last.indexOf(".") < 0) key += "/";
    var hit = await caches.match(key, kept);
    if (hit) return hit;
    try {
      return await fetch(event.request);
    } catch (error) {
      var missing = await caches.match(ROOT + "404.html", kept);
      if (missing) return new Response(missing.body, { status: 404, headers: missing.headers });
      throw error;
    }
  })());
});
