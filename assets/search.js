// ccreport search: an offline full-text search over the whole archive, working from file://.
// The index is per project: search/<project>.js scripts that call ccreportSearch.add(data), listed
// by search/manifest.js; each names the chunk scripts (search/<project>/<session>/...) that hold
// the pages' documents and call ccreportSearch.chunk(data). They are injected as classic <script> elements on first use (fetch and
// modules are blocked from file://) and indexed with the vendored MiniSearch. Results are built with
// DOM APIs and textContent only: transcript text never becomes markup.
(function () {
  "use strict";
  var KINDS = { p: "prompt", a: "answer", t: "tool" };
  var SNIPPET_BEFORE = 60, SNIPPET_AFTER = 160, MAX_RESULTS = 50;
  var form, input, panel, status, list, projSel, kindSel, root = "";
  var manifest = null, manifestWaiters = [], bundleWaiters = {}, bundles = {};
  var mini = null, docs = [], ranges = {}, indexed = {}, loadMs = 0, timer = null, seq = 0;
  // Above this many items in scope, building MiniSearch's index in the page takes too long (tens of
  // seconds for a 300 MB home), so the search scans the texts instead: every word must occur.
  var RANK_MAX_DOCS = 12000, mode = "ranked";

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  // Paths in the index are the site's names as they are on disk ('#', '%', '?', a tab or spaces in
  // a project or session name): each segment is percent-encoded once as it becomes a URL, so the
  // scripts of "a#b" load (issue 18: the search waited for them forever). A hit's "#L<n>" anchor
  // (after its last '#') stays an anchor.
  function href(path) {
    return path.split("/").map(encodeURIComponent).join("/");
  }

  function hitHref(dir, page) {
    var i = page.lastIndexOf("#");
    return i < 0 ? href(dir + page) : href(dir + page.slice(0, i)) + page.slice(i);
  }

  function inject(src, onerror) {
    var s = document.createElement("script");
    s.src = src;
    s.async = true;
    s.onerror = onerror;
    document.head.appendChild(s);
  }

  // The callbacks the index scripts make.
  window.ccreportSearch = {
    manifest: function (m) {
      manifest = m;
      var w = manifestWaiters; manifestWaiters = [];
      w.forEach(function (f) { f(); });
    },
    // A project's loader: its sessions and the chunk scripts that hold its pages. The project
    // counts as loaded once every chunk has called back.
    add: function (data) {
      bundles[data.project] = data;
      data.pending = data.chunks.length;
      data.byFile = {};
      if (!data.pending) return loaded(data.project);
      data.chunks.forEach(function (file) {
        chunkOwner[file] = data.project;
        inject(root + href(file), function () { fail(data.project); });
      });
    },
    chunk: function (c) {
      var b = bundles[chunkOwner[c.file]];
      if (!b || b.byFile[c.file]) return;
      b.byFile[c.file] = c;
      if (--b.pending === 0) loaded(b.project);
    }
  };
  var chunkOwner = {};  // chunk file → project

  function loaded(dir) {
    var w = bundleWaiters[dir] || []; delete bundleWaiters[dir];
    w.forEach(function (f) { f[0](); });
  }

  function fail(dir) {
    var w = bundleWaiters[dir] || []; delete bundleWaiters[dir];
    w.forEach(function (f) { f[1](); });
  }

  function needMiniSearch(done, fail) {
    if (window.MiniSearch) return done();
    inject(form.getAttribute("data-minisearch"), fail);
    var tries = 0;
    (function wait() {
      if (window.MiniSearch) return done();
      if (++tries > 400) return fail();
      setTimeout(wait, 10);
    })();
  }

  function needManifest(done, fail) {
    if (manifest) return done();
    manifestWaiters.push(done);
    if (manifestWaiters.length === 1) inject(form.getAttribute("data-manifest"), fail);
  }

  function needBundle(p, done, failed) {
    if (bundles[p.dir] && !bundles[p.dir].pending) return done();
    (bundleWaiters[p.dir] = bundleWaiters[p.dir] || []).push([done, failed]);
    if (bundleWaiters[p.dir].length === 1 && !bundles[p.dir]) inject(root + href(p.file), function () { fail(p.dir); });
  }

  // A loaded bundle becomes plain document objects (ids are global positions in docs).
  function take(dir) {
    if (ranges[dir]) return;
    var b = bundles[dir], start = docs.length, sessions = {};
    b.sessions.forEach(function (s) { sessions[s[0]] = s; });  // [id, title, url, first time]
    for (var c = 0; c < b.chunks.length; c++) {  // the loader's order, not the arrival order
      var ch = b.byFile[b.chunks[c]], s = sessions[ch.session];
      for (var i = 0; i < ch.pages.length; i++) {
        var list = ch.pages[i]; // [[kind, url suffix, time, text], ...]
        for (var j = 0; j < list.length; j++) {
          var d = list[j];
          docs.push({ p: dir, s: s, k: d[0], u: d[1], ts: d[2], text: d[3] });
        }
      }
    }
    ranges[dir] = [start, docs.length];
    delete bundles[dir];
  }

  // MiniSearch (ranked, prefix) for scopes it can index quickly enough in the page.
  function index(dir) {
    if (indexed[dir]) return;
    if (!mini) mini = new window.MiniSearch({ fields: ["text"], idField: "id" });
    var r = ranges[dir], batch = [];
    for (var i = r[0]; i < r[1]; i++) batch.push({ id: i, text: docs[i].text });
    mini.addAll(batch);
    indexed[dir] = true;
  }

  function fillProjects() {
    manifest.projects.forEach(function (p) {
      var o = el("option", null, p.title);  // no count: the manifest is not rewritten per append
      o.value = p.dir;
      projSel.appendChild(o);
    });
  }

  function scope() {
    return manifest.projects.filter(function (p) { return !projSel.value || p.dir === projSel.value; });
  }

  // Load (once) the bundles the filter needs, then search.
  function ensureLoaded(done) {
    needMiniSearch(function () {
      needManifest(function () {
        if (projSel.options.length === 1) fillProjects();
        var want = scope();
        var todo = want.filter(function (p) { return !ranges[p.dir]; });
        if (!todo.length) return done();
        var t0 = performance.now(), n = 0;
        status.textContent = "Loading the index…";
        todo.forEach(function (p) {
          needBundle(p, function () {
            take(p.dir);
            n++;
            status.textContent = "Loading the index… " + n + " of " + todo.length + " projects";
            if (n === todo.length) { loadMs += performance.now() - t0; done(); }
          }, function () { status.textContent = "Could not load the index of " + p.title + "."; });
        });
      }, function () { status.textContent = "No search index found (search/manifest.js): rebuild the site."; });
    }, function () { status.textContent = "Could not load the search library."; });
  }

  function run() {
    var q = input.value.trim(), my = ++seq;
    if (!q) { list.textContent = ""; status.textContent = ""; return; }
    panel.hidden = false;
    ensureLoaded(function () {
      if (my !== seq) return;
      var t0 = performance.now();
      var proj = projSel.value, kind = kindSel.value, want = scope(), size = 0;
      want.forEach(function (p) { size += ranges[p.dir][1] - ranges[p.dir][0]; });
      var hits, lower = q.toLowerCase();
      var rankMax = parseInt(form.getAttribute("data-rank-max"), 10);  // lets a test force the scan
      mode = size <= (rankMax >= 0 ? rankMax : RANK_MAX_DOCS) ? "ranked" : "scan";
      if (mode === "ranked") {
        var ti = performance.now();
        want.forEach(function (p) { index(p.dir); });
        loadMs += performance.now() - ti;
        t0 = performance.now();
        hits = mini.search(q, {
          combineWith: "AND",
          prefix: function (term, i, terms) { return i === terms.length - 1; },
          filter: function (r) { var d = docs[r.id]; return (!proj || d.p === proj) && (!kind || d.k === kind); }
        });
      } else {
        hits = scan(want, lower, kind);
      }
      // An exact occurrence of the whole query ranks first: people search for phrases they remember.
      if (/\s/.test(q)) {
        var exact = [], rest = [];
        hits.forEach(function (h) { (docs[h.id].text.toLowerCase().indexOf(lower) >= 0 ? exact : rest).push(h); });
        hits = exact.concat(rest);
      }
      var ms = performance.now() - t0;
      show(hits, q, ms);
    });
  }

  // Every word of the query occurs (case-insensitive); the newest first.
  function scan(want, lower, kind) {
    var terms = lower.split(/[\s\p{P}]+/u).filter(Boolean).map(function (t) {
      return new RegExp(t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i");
    });
    var hits = [];
    if (!terms.length) return hits;
    want.forEach(function (p) {
      var r = ranges[p.dir];
      for (var i = r[0]; i < r[1]; i++) {
        var d = docs[i];
        if (kind && d.k !== kind) continue;
        var ok = true;
        for (var j = 0; j < terms.length && ok; j++) ok = terms[j].test(d.text);
        if (ok) hits.push({ id: i });
      }
    });
    hits.sort(function (a, b) { return docs[a.id].ts < docs[b.id].ts ? 1 : docs[a.id].ts > docs[b.id].ts ? -1 : 0; });
    return hits;
  }

  function snippet(text, q, terms) {
    var lower = text.toLowerCase(), at = lower.indexOf(q.toLowerCase()), len = q.length;
    for (var i = 0; at < 0 && i < terms.length; i++) { at = lower.indexOf(terms[i]); len = terms[i].length; }
    var frag = el("p", "snippet");
    if (at < 0) { frag.textContent = text.slice(0, SNIPPET_AFTER); return frag; }
    var start = Math.max(0, at - SNIPPET_BEFORE), end = Math.min(text.length, at + len + SNIPPET_AFTER);
    frag.appendChild(document.createTextNode((start > 0 ? "…" : "") + text.slice(start, at)));
    frag.appendChild(el("mark", null, text.slice(at, at + len)));
    frag.appendChild(document.createTextNode(text.slice(at + len, end) + (end < text.length ? "…" : "")));
    return frag;
  }

  function when(ts) {
    var d = new Date(ts);
    if (!ts || isNaN(d)) return "";
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + ":" + pad(d.getMinutes());
  }

  function show(hits, q, ms) {
    list.textContent = "";
    var terms = q.toLowerCase().split(/\s+/).filter(Boolean);
    var titles = {};
    (manifest.projects || []).forEach(function (p) { titles[p.dir] = p.title; });
    hits.slice(0, MAX_RESULTS).forEach(function (h) {
      var d = docs[h.id], li = el("li", "hit");
      var a = el("a", "hit-title", d.s[1] || d.s[0]);
      a.href = root + hitHref(d.s[2], d.u);
      li.appendChild(a);
      var meta = el("div", "hit-meta small dim");
      meta.appendChild(el("span", "chip", KINDS[d.k] || d.k));
      meta.appendChild(document.createTextNode(" " + (titles[d.p] || d.p) + " · " + when(d.ts) +
        (d.u.indexOf("agent-") === 0 ? " · sub-agent" : "")));
      li.appendChild(meta);
      li.appendChild(snippet(d.text, q, terms));
      list.appendChild(li);
    });
    var n = hits.length;
    status.textContent = (n === 0 ? "No results" : n + " result" + (n === 1 ? "" : "s") + (n > MAX_RESULTS ? " (first " + MAX_RESULTS + " shown)" : "")) +
      " for “" + q + "” over " + scopeSize().toLocaleString() + " items" + (mode === "scan" ? " (text scan: too many to rank)" : "") + " · search " + Math.round(ms) + " ms" +
      (loadMs ? " · index loaded and built in " + Math.round(loadMs) + " ms" : "");
    status.setAttribute("data-count", String(n));
  }

  function scopeSize() {
    var n = 0;
    scope().forEach(function (p) { if (ranges[p.dir]) n += ranges[p.dir][1] - ranges[p.dir][0]; });
    return n;
  }

  function schedule() { clearTimeout(timer); timer = setTimeout(run, 180); }

  function close() { panel.hidden = true; }

  function init() {
    form = document.getElementById("search-form");
    if (!form) return;
    root = document.body.getAttribute("data-root") || "";
    input = document.getElementById("search-q");
    panel = document.getElementById("search-panel");
    status = document.getElementById("search-status");
    list = document.getElementById("search-results");
    projSel = document.getElementById("search-project");
    kindSel = document.getElementById("search-kind");
    form.addEventListener("submit", function (e) { e.preventDefault(); clearTimeout(timer); run(); });
    input.addEventListener("input", schedule);
    // The project filter is filled from the (small) manifest as soon as the box is used.
    input.addEventListener("focus", function () {
      needManifest(function () { if (projSel.options.length === 1) fillProjects(); }, function () {});
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { close(); input.blur(); }
      if (e.key === "ArrowDown" && !panel.hidden) { var f = list.querySelector("a"); if (f) { e.preventDefault(); f.focus(); } }
    });
    projSel.addEventListener("change", run);
    kindSel.addEventListener("change", run);
    document.getElementById("search-close").addEventListener("click", function () { close(); input.focus(); });
    panel.addEventListener("keydown", function (e) { if (e.key === "Escape") { close(); input.focus(); } });
  }

  if (document.readyState !== "loading") init(); else document.addEventListener("DOMContentLoaded", init);
})();
