// ccreport search: a ranked full-text search over the whole archive, from file:// and over serve.
// The build writes a sharded index (docs/search.md): search/t/<shard>.js (term → postings per
// transcript "unit"), search/b/ (blocks of frequent terms), search/d/ (documents, deflated),
// search/u/ (unit metadata), search/manifest.js, and search/delta.js (what incremental builds changed
// since the shards were last written: applied to every term read). Each is a classic script calling back into
// window.ccreportSearch (fetch and modules are blocked from file://); a query loads only the
// shards of its terms, then the documents and metadata of the hits it shows. Results are built with
// DOM APIs and textContent only: transcript text never becomes markup.
(function () {
  "use strict";
  var KIND_NAMES = ["prompt", "answer", "thinking", "tool"], KIND_CODES = { p: 0, a: 1, h: 2, t: 3 };
  // A match in a prompt or an answer outranks the same match in thinking or tool output.
  var KIND_FACTOR = [1.0, 1.0, 0.6, 0.4];
  var POSTING_FILTERS = ["tool", "file", "is"], META_FILTERS = ["project", "session", "model", "after", "before"];
  var BIG = 65536, MAX_TERM = 40, PAGE_SESSIONS = 10, HITS_PER_SESSION = 3, PREFIX_TERMS = 24;
  var PHRASE_CHECKS = 400, SNIPPET_BEFORE = 60, SNIPPET_AFTER = 160;
  var CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+/g;
  var root = "", manifest = null, form, input, panel, status, list, projSel, kindSel, fromIn, toIn;
  var loaded = {}, shards = {}, blocks = {}, docChunks = {}, units = {}, timer = null, seq = 0, shown = null;
  var delta = { cuts: {}, terms: {} };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = window.ccreport.visible(String(text));  // (app.js)
    return e;
  }

  // ---- loading: one classic script per file, each loaded once; a missing one counts as empty.
  function load(rel) {
    if (!loaded[rel]) loaded[rel] = new Promise(function (resolve) {
      var s = document.createElement("script");
      s.src = root + rel;
      s.async = true;
      s.onload = s.onerror = function () { s.remove(); resolve(); };
      document.head.appendChild(s);
    });
    return loaded[rel];
  }

  window.ccreportSearch = {
    manifest: function (m) { manifest = m; },
    shard: function (n, data) { shards[n] = data; },
    block: function (name, flat) { blocks[name] = flat; },
    delta: function (d) { delta = { cuts: d.cuts || {}, terms: d.terms || {} }; },
    docs: function (name, chunks) {  // a document file: unit → its chunk (the file name's number)
      var chunk = name.split("-")[1];
      for (var k in chunks) docChunks[k + "-" + chunk] = chunks[k];
    },
    units: function (p, packed) { unitFiles[p] = packed; },  // deflated (site.searchindex.write_meta)
    query: function (q, opts) {  // for tests and benchmarks
      return ensureManifest().then(function () { return search(parse(q, opts || {})); });
    },
    loadedFiles: function () { return Object.keys(loaded); }
  };

  // ---- the same terms as ccreport/site/searchtext.py
  function cut(w) { return w.length > MAX_TERM ? Array.from(w).slice(0, MAX_TERM).join("") : w; }

  function terms(text) {
    var out = [], words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) || [];
    words.forEach(function (w) {
      CJK.lastIndex = 0;
      if (!CJK.test(w)) { out.push(cut(w)); return; }
      var pos = 0, m;
      CJK.lastIndex = 0;
      while ((m = CJK.exec(w))) {
        if (m.index > pos) out.push(cut(w.slice(pos, m.index)));
        var run = Array.from(m[0]);
        if (run.length === 1) out.push(run[0]);
        for (var i = 0; i + 1 < run.length; i++) out.push(run[i] + run[i + 1]);
        pos = m.index + m[0].length;
      }
      if (pos < w.length) out.push(cut(w.slice(pos)));
    });
    return out;
  }

  function shardOf(term) {
    var key = term.indexOf(":") >= 0 ? term : Array.from(term).slice(0, 3).join("");
    var h = 0x811c9dc5, bytes = new TextEncoder().encode(key);
    for (var i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
    return h % manifest.shards;
  }

  function idf(df) { var n = 1e6; return Math.log(1 + (n - df + 0.5) / (df + 0.5)); }

  // ---- the query: words (all must occur in a session), "phrases" and words joined by
  // punctuation (search.py) must occur as written in one message, the last word is completed,
  // filters: tool:NAME file:NAME is:error session:ID project:DIR model:NAME after:DATE before:DATE
  // kind:KIND (ccreport/site/searchquery.py reads queries the same way).
  function parse(q, opts) {
    var query = { text: q, groups: [], phrases: [], filters: { project: opts.project || "", kind: opts.kind || "",
      after: opts.after || "", before: opts.before || "", session: "", tool: "", file: "", model: "", is: "" },
      checks: opts.checks === undefined ? PHRASE_CHECKS : opts.checks };
    var re = /"([^"]*)("|$)|(\S+)/g, m, last = null;
    while ((m = re.exec(q))) {
      if (m[1] != null && m[0][0] === '"') { addPhrase(query, m[1]); last = null; continue; }
      var word = m[3], f = /^(tool|file|session|project|after|before|kind|model|is):(.+)$/i.exec(word);
      if (f) { query.filters[f[1].toLowerCase()] = f[2]; last = null; continue; }
      var ts = terms(word);
      if (ts.length > 1) addPhrase(query, word);
      else if (ts.length === 1) { last = { terms: [ts[0]], word: ts[0] }; query.groups.push(last); }
    }
    // The last word is completed when the query does not end with a space.
    if (last && last === query.groups[query.groups.length - 1] && !/\s$/.test(q) && last.word.length >= 3) last.prefix = true;
    if (query.filters.kind && KIND_CODES[query.filters.kind[0]] != null) query.filters.kindCode = KIND_CODES[query.filters.kind[0]];
    return query;
  }

  function addPhrase(query, text) {
    var ts = terms(text);
    if (!ts.length) return;
    ts.forEach(function (t) { query.groups.push({ terms: [t], word: t }); });
    if (ts.length > 1) query.phrases.push(ts);
  }

  // ---- postings: term → {unit key: [[doc, kind, weight], ...]}
  // A shard comes with the delta: both are needed before any of its terms is read.
  // A shard is deflated (site.searchfiles.shard_script): inflated once, when first loaded.
  var inflating = {};
  function loadShard(n) {
    return Promise.all([load("search/t/" + n.toString(16).padStart(3, "0") + ".js"), load("search/delta.js")])
      .then(function () {
        if (typeof shards[n] !== "string") return;
        if (!inflating[n]) inflating[n] = inflate(shards[n]).then(function (data) { shards[n] = data; });
        return inflating[n];
      });
  }

  // A term's postings [unit, postings, ...] as a full build would have written them: the shard's
  // (or its blocks'), less those of the units the delta cuts from their cut on, plus the delta's.
  function termUnits(term) {
    var n = shardOf(term);
    return loadShard(n).then(function () {
      var e = (shards[n] || {})[term];
      if (!e || typeof e[0] !== "number") return effective(term, e);
      var names = [];
      for (var b = 0; b < (1 << e[0]); b++) names.push(e[2] + "-" + e[0] + "-" + b);
      return Promise.all(names.map(function (nm) { return load("search/b/" + nm + ".js"); })).then(function () {
        var flat = [];
        names.forEach(function (nm) { flat = flat.concat(blocks[nm] || []); });
        return effective(term, flat);
      });
    });
  }

  function effective(term, flat) {
    var out = [], extra = delta.terms[term];
    for (var i = 0; flat && i < flat.length; i += 2) {
      var cut = delta.cuts[flat[i]], enc = cut == null ? flat[i + 1] : before(flat[i + 1], cut);
      if (enc) out.push(flat[i], enc);
    }
    if (extra) out = out.concat(extra);  // each unit's list starts again from document 0
    return out.length ? out : null;
  }

  function before(enc, cut) {  // the postings of documents before cut
    var list = enc.split(","), doc = 0;
    for (var j = 0; j < list.length; j++) {
      doc += Math.floor(parseInt(list[j], 16) / 256);
      if (doc >= cut) return list.slice(0, j).join(",");
    }
    return enc;
  }

  function decode(flat, factor, into, restrict) {
    var df = 0;
    for (var i = 0; i < flat.length; i += 2) {
      var key = flat[i], list = flat[i + 1].split(","), docs = into[key] || (into[key] = {}), doc = 0;
      for (var j = 0; j < list.length; j++) {  // each document is a step from the one before
        var v = parseInt(list[j], 16), kind = (v >> 6) & 3, w = (v & 63) * factor * KIND_FACTOR[kind];
        doc += Math.floor(v / 256);
        df++;
        if (restrict && !restrict(key, doc, kind)) continue;
        if (!docs[doc] || docs[doc] < w) docs[doc] = w;
      }
    }
    return df;
  }

  // A group's postings ({unit: {doc: weight}}) and its idf; a completed word takes the most
  // frequent terms that start with it (the word itself at full weight, the others at 0.9).
  function groupPostings(g, restrict) {
    var n = shardOf(g.word);
    return loadShard(n).then(function () {
      var names = [g.word];
      if (g.prefix) {
        var seen = {}, all = Object.keys(shards[n] || {}).concat(Object.keys(delta.terms)).filter(function (t) {
          if (seen[t] || t === g.word || t.indexOf(g.word) !== 0 || t.indexOf(":") >= 0) return false;
          return (seen[t] = size(t, (shards[n] || {})[t])) > 0;
        });
        all.sort(function (a, b) { return seen[b] - seen[a] || (a < b ? -1 : 1); });
        names = names.concat(all.slice(0, PREFIX_TERMS));
      }
      return Promise.all(names.map(termUnits)).then(function (lists) {
        var into = {}, df = 0;
        lists.forEach(function (flat, i) { if (flat) df = Math.max(df, decode(flat, i === 0 ? 1 : 0.9, into, restrict)); });
        g.idf = idf(Math.max(df, 1));
        g.units = into;
        g.expanded = names;
      });
    });
  }

  // How much a term has, to choose among completions: a full build's measure (the characters of
  // an inline entry; of a frequent term's, as its entry says). For a frequent term the delta
  // changes, what the delta adds is counted (what it takes away is in blocks not loaded here).
  function size(term, e) {
    var d = delta.terms[term];
    if (e && typeof e[0] === "number") return e[1] + (d ? written(d) : 0);
    var flat = effective(term, e) || [];
    return written(flat) > BIG ? written(flat) : flat.join("").length;
  }

  function written(flat) {  // as searchindex._entry counts them
    var n = 3 * flat.length;
    for (var i = 0; i < flat.length; i++) n += flat[i].length;
    return n;
  }

  // ---- matching and ranking, per session (the first 8 hex digits of a unit key)
  function search(query) {
    var f = query.filters, t0 = performance.now();
    var pre = [];
    POSTING_FILTERS.forEach(function (k) {
      var v = k === "file" ? f[k].split("/").pop() : f[k];
      if (v) pre.push(termUnits(k + ":" + v.toLowerCase()).then(function (flat) {
        var allow = {}; decode(flat || [], 1, allow); return allow;
      }));
    });
    if (!query.groups.length) return Promise.all(pre).then(function (allows) {
      return listing(f, pre.length ? allows : null);
    }).then(function (sessions) { return { query: query, sessions: sessions, ms: performance.now() - t0 }; });
    return Promise.all(pre).then(function (allows) {
      var restrict = function (key, doc, kind) {
        if (f.kindCode != null && kind !== f.kindCode) return false;
        if (pre.length && kind !== 3) return false;
        for (var i = 0; i < allows.length; i++) if (!(allows[i][key] || {})[doc]) return false;
        return true;
      };
      return Promise.all(query.groups.map(function (g) { return groupPostings(g, restrict); }));
    }).then(function () {
      var sessions = rank(query);
      return sessionFilters(query, sessions).then(function (kept) {
        return phraseFilter(query, kept).then(function (final) {
          return { query: query, sessions: final, ms: performance.now() - t0 };
        });
      });
    });
  }

  function rank(query) {
    var groups = query.groups.slice().sort(function (a, b) { return count(a.units) - count(b.units); });
    groups.forEach(function (g) {
      g.bySession = {};
      for (var key in g.units) (g.bySession[key.slice(0, 8)] = g.bySession[key.slice(0, 8)] || []).push(key);
    });
    var out = [];
    Object.keys(groups[0].bySession).forEach(function (sk) {
      var ok = true, score = 0, docs = {};
      for (var i = 0; i < groups.length && ok; i++) {
        var best = 0, g = groups[i], keys = g.bySession[sk] || [];
        for (var k = 0; k < keys.length; k++) {
          var key = keys[k], ds = g.units[key];
          for (var d in ds) {
            var id = key + ":" + d;
            docs[id] = (docs[id] || 0) + ds[d] * g.idf;
            if (ds[d] > best) best = ds[d];
          }
        }
        ok = best > 0;
        score += best * g.idf;
      }
      if (!ok) return;
      var hits = Object.keys(docs).sort(function (a, b) { return docs[b] - docs[a] || (a < b ? -1 : a > b ? 1 : 0); });
      out.push({ key: sk, score: score, top: docs[hits[0]], hits: hits, docScore: docs });
    });
    out.sort(function (a, b) { return b.score - a.score || b.top - a.top || (a.key < b.key ? -1 : 1); });
    return out;
  }

  function count(u) { var n = 0; for (var k in u) n++; return n; }

  // Project, session and date filters need each session's metadata (search/u/).
  function sessionFilters(query, sessions) {
    var f = query.filters;
    if (!hasMeta(f)) return Promise.resolve(sessions);
    return needUnits(sessions.map(function (s) { return s.hits[0].split(":")[0]; })).then(function () {
      return sessions.filter(function (s) { return metaOk(f, units[s.hits[0].split(":")[0]]); });
    });
  }

  function hasMeta(f) { return META_FILTERS.some(function (k) { return !!f[k]; }); }

  function metaOk(f, u) {
    if (!u) return false;
    if (f.project && u[2] !== f.project && u[2].toLowerCase().indexOf(f.project.toLowerCase()) < 0) return false;
    if (f.session && u[3].indexOf(f.session) !== 0) return false;
    if (f.model && !(u[7] || []).some(function (m) { return m.toLowerCase().indexOf(f.model.toLowerCase()) >= 0; })) return false;
    if (f.after && (u[6] || "").slice(0, 10) < f.after) return false;
    if (f.before && (u[5] || "").slice(0, 10) > f.before) return false;
    return true;
  }

  // A query of filters alone: the sessions they select, newest first, with the messages they
  // select (each unit's latest first); with no posting filter (tool:, file:, is:), every unit's
  // first message, from all the unit metadata.
  function listing(f, allows) {
    var pick = {}, ready;
    if (!allows) {
      if (!hasMeta(f)) return Promise.resolve([]);
      var all = [];
      for (var i = 0; i < 16; i++) all.push(i.toString(16));
      ready = needUnits(all).then(function () { for (var k in units) pick[k] = [0]; });
    } else {
      if (!f.kind || f.kind[0].toLowerCase() === "t") for (var key in allows[0]) {
        var kept = Object.keys(allows[0][key]).map(Number).filter(function (d) {
          return allows.every(function (a) { return (a[key] || {})[d]; });
        }).sort(function (a, b) { return b - a; });
        if (kept.length) pick[key] = kept;
      }
      ready = needUnits(Object.keys(pick));
    }
    return ready.then(function () {
      var sessions = {}, latest = {};
      Object.keys(pick).sort().forEach(function (key) {
        var u = units[key];
        if (!metaOk(f, u)) return;
        var sk = key.slice(0, 8), t = u[6] || u[5] || "";
        (sessions[sk] = sessions[sk] || []).push.apply(sessions[sk], pick[key].map(function (d) { return key + ":" + d; }));
        if (latest[sk] == null || t > latest[sk]) latest[sk] = t;
      });
      return Object.keys(sessions).sort(function (a, b) {
        return latest[a] < latest[b] ? 1 : latest[a] > latest[b] ? -1 : (a < b ? 1 : a > b ? -1 : 0);
      }).map(function (sk) { return { key: sk, score: 0, top: 0, hits: sessions[sk] }; });
    });
  }

  var unitFiles = {}, unitsReady = {};
  function needUnits(keys) {
    var want = {};
    keys.forEach(function (k) { want[k.slice(0, 1)] = 1; });  // (searchindex.units_file)
    return Promise.all(Object.keys(want).map(function (p) {
      if (!unitsReady[p]) unitsReady[p] = load("search/u/" + p + ".js").then(function () {
        return unitFiles[p] ? inflate(unitFiles[p]) : {};
      }).then(function (data) { for (var k in data) units[k] = data[k]; });
      return unitsReady[p];
    }));
  }

  // ---- documents: [kind, url, time, "tool\tfile", text], manifest.chunk to a deflated chunk, in a
  // file shared by several units' chunks (layout.search_docs: the same arithmetic)
  function inflate(packed) {  // base-64 of deflated JSON (site.search.deflated)
    var bin = atob(packed), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }
  var DOC_FILES = [448, 128, 64, 32, 16, 8];  // (layout.DOC_FILES)
  function docFile(key, chunk) {
    var mix = (parseInt(key.slice(0, 8), 16) ^ parseInt(key.slice(8), 16)) >>> 0;
    var b = (mix % DOC_FILES[Math.min(chunk, DOC_FILES.length - 1)]).toString(16);
    return "search/d/" + (b.length < 2 ? "0" + b : b) + "-" + chunk + ".js";
  }
  var inflated = {};
  function docOf(id) {
    var per = manifest.chunk, key = id.split(":")[0], no = +id.split(":")[1], chunk = Math.floor(no / per);
    var name = key + "-" + chunk;
    if (!inflated[name]) inflated[name] = load(docFile(key, chunk)).then(function () {
      return docChunks[name] ? inflate(docChunks[name]) : [];
    });
    return inflated[name].then(function (docs) { return docs[no % per] || null; });
  }

  function hasPhrase(text, phrase) {
    var ts = terms(text);
    outer: for (var i = 0; i + phrase.length <= ts.length; i++) {
      for (var j = 0; j < phrase.length; j++) if (ts[i + j] !== phrase[j]) continue outer;
      return true;
    }
    return false;
  }

  // A phrase must occur in one message: the best candidates (every phrase word in the message)
  // are checked against their text, up to PHRASE_CHECKS of them.
  function phraseFilter(query, sessions) {
    if (!query.phrases.length) return Promise.resolve(sessions);
    var checks = [], byTerm = {};
    query.groups.forEach(function (g) { byTerm[g.word] = g; });
    var holds = function (id) {  // every word of every phrase is in this message
      var key = id.split(":")[0], doc = id.split(":")[1];
      return query.phrases.every(function (p) {
        return p.every(function (t) { return ((byTerm[t].units[key] || {})[doc] || 0) > 0; });
      });
    };
    sessions.forEach(function (s) {
      s.hits.forEach(function (id) { if ((query.checks == null || checks.length < query.checks) && holds(id)) checks.push([s, id]); });
    });
    return Promise.all(checks.map(function (c) { return docOf(c[1]); })).then(function (docs) {
      var good = {};
      docs.forEach(function (d, i) {
        if (d && query.phrases.every(function (p) { return hasPhrase(d[4], p); })) (good[checks[i][0].key] = good[checks[i][0].key] || []).push(checks[i][1]);
      });
      return sessions.filter(function (s) { return good[s.key]; }).map(function (s) { s.hits = good[s.key]; return s; });
    });
  }

  // ---- showing results: sessions (title once), their best hits under them
  function run() {
    var q = input.value, my = ++seq;
    // What an earlier query left (a run while typing) is not this query's answer.
    status.removeAttribute("data-hits");
    status.removeAttribute("data-count");
    if (!q.trim()) { list.textContent = ""; status.textContent = ""; return; }
    panel.hidden = false;
    status.textContent = "Searching…";
    var opts = { project: projSel.value, kind: kindSel.value, after: fromIn.value, before: toIn.value };
    ensureManifest().then(function () {
      return search(parse(q, opts));
    }).then(function (res) {
      if (my !== seq) return;
      shown = res;
      list.textContent = "";
      status.removeAttribute("data-hits");
      return more(res, my);
    }).catch(function () { if (my === seq) status.textContent = "The search index could not be read: rebuild the site."; });
  }

  function ensureManifest() {
    return load("search/manifest.js").then(function () {
      if (!manifest) throw new Error("no manifest");
      if (projSel && projSel.options.length === 1) manifest.projects.forEach(function (p) {
        var o = el("option", null, p.title); o.value = p.dir; projSel.appendChild(o);
      });
    });
  }

  // The sessions first (their titles need only the small metadata shards), then their hits as
  // their documents arrive.
  function more(res, my) {
    var start = list.children.length, page = res.sessions.slice(start, start + PAGE_SESSIONS);
    return needUnits(page.map(function (s) { return s.hits[0]; })).then(function () {
      if (my !== seq) return;
      var fills = page.map(function (s) {
        var li = sessionItem(s);
        list.appendChild(li);
        return fillHits(res.query, s, li);
      });
      describe(res);
      return Promise.all(fills).then(function () { if (my === seq) status.setAttribute("data-hits", "1"); });
    });
  }

  function describe(res) {
    var n = res.sessions.length, words = res.query.text.trim(), msgs = 0;
    res.sessions.forEach(function (s) { msgs += s.hits.length; });
    status.textContent = n === 0 ? "No session contains “" + words + "”." :
      n + (n === 1 ? " session" : " sessions") + " (" + msgs + (msgs === 1 ? " message" : " messages") + ") match “" + words + "”" +
      (list.children.length < n ? ", the best " + list.children.length + " shown." : ".");
    status.setAttribute("data-count", String(n));
    status.setAttribute("data-ms", String(Math.round(res.ms)));
    var btn = document.getElementById("search-more");
    if (btn) btn.remove();
    if (list.children.length < n) {
      btn = el("button", "btn", "More results");
      btn.type = "button"; btn.id = "search-more";
      btn.addEventListener("click", function () { more(res, seq); });
      list.parentNode.insertBefore(btn, list.nextSibling);
    }
  }

  function sessionItem(s) {
    var first = units[s.hits[0].split(":")[0]] || ["", s.key, "", "", "", "", ""];
    var li = el("li", "hit-session");
    var head = el("div", "hit-head");
    head.appendChild(el("span", "hit-title", first[1]));
    head.appendChild(el("span", "small dim", " " + projectTitle(first[2]) + " · " + when(first[6] || first[5])));
    head.appendChild(el("span", "chip hit-count", s.hits.length + (s.hits.length === 1 ? " message" : " messages")));
    li.appendChild(head);
    return li;
  }

  function fillHits(query, s, li) {
    var first = units[s.hits[0].split(":")[0]] || ["", s.key, "", "", "", "", ""];
    var ul = el("ul", "hits");
    var marks = markTerms(query);
    return Promise.all(s.hits.slice(0, HITS_PER_SESSION).map(docOf)).then(function (docs) {
      docs.forEach(function (d, i) {
        if (!d) return;
        var u = units[s.hits[i].split(":")[0]] || first;
        ul.appendChild(hitItem(d, u, marks, query));
      });
      if (s.hits.length > HITS_PER_SESSION) ul.appendChild(el("li", "small dim", "and " + (s.hits.length - HITS_PER_SESSION) + " more in this session"));
      li.appendChild(ul);
    });
  }

  function hitItem(d, u, marks, query) {
    var li = el("li", "hit"), a = el("a", "hit-link");
    var tool = d[3] ? d[3].split("\t") : ["", ""];
    var kind = { p: "prompt", a: "answer", h: "thinking", t: tool[0] || "tool" }[d[0]] || d[0];
    a.appendChild(el("span", "chip", kind));
    if (u[4]) a.appendChild(el("span", "small dim", " sub-agent: " + u[4]));
    if (tool[1]) a.appendChild(el("span", "small dim", " " + tool[1]));
    a.appendChild(el("span", "small dim", " " + when(d[2])));
    var hash = d[1].indexOf("#"), hl = marks.length ? "?hl=" + encodeURIComponent(marks.join(" ")) : "";
    a.href = root + u[0] + d[1].slice(0, hash) + hl + d[1].slice(hash);
    li.appendChild(a);
    li.appendChild(snippet(d[4], marks));
    return li;
  }

  function markTerms(query) {
    var out = [];
    query.groups.forEach(function (g) { var t = g.prefix ? g.word + "*" : g.word; if (out.indexOf(t) < 0) out.push(t); });
    return out;
  }

  function projectTitle(dir) {
    var p = (manifest && manifest.projects || []).filter(function (x) { return x.dir === dir; })[0];
    return p ? p.title : dir;
  }

  // The text around the first matched word, the matched words marked.
  function snippet(text, marks) {
    var at = firstMatch(text, marks);
    var start = Math.max(0, at - SNIPPET_BEFORE), end = Math.min(text.length, Math.max(at, 0) + SNIPPET_AFTER);
    var p = el("p", "snippet");
    if (start > 0) p.appendChild(document.createTextNode("…"));
    window.ccreport.mark(p, text.slice(start, end), marks, null);  // (app.js)
    if (end < text.length) p.appendChild(document.createTextNode("…"));
    return p;
  }

  // Where the first whole word of ``marks`` starts in ``text`` (-1: none), as app.js marks them.
  function firstMatch(text, marks) {
    var re = /[\p{L}\p{N}_]+/gu, m;
    while ((m = re.exec(text))) {
      var ts = terms(m[0]);
      for (var i = 0; i < ts.length; i++) for (var j = 0; j < marks.length; j++) {
        var w = marks[j], star = w.slice(-1) === "*", bare = star ? w.slice(0, -1) : w;
        if (ts[i] === bare || (star && ts[i].indexOf(bare) === 0)) return m.index;
      }
    }
    return -1;
  }

  function when(ts) {
    var d = new Date(ts);
    if (!ts || isNaN(d)) return "";
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + ":" + pad(d.getMinutes());
  }

  function schedule() { clearTimeout(timer); timer = setTimeout(run, 40); }

  function init() {
    form = document.getElementById("search-form");
    root = document.body.getAttribute("data-root") || "";
    if (!form) return;
    input = document.getElementById("search-q");
    panel = document.getElementById("search-panel");
    status = document.getElementById("search-status");
    list = document.getElementById("search-results");
    projSel = document.getElementById("search-project");
    kindSel = document.getElementById("search-kind");
    fromIn = document.getElementById("search-from");
    toIn = document.getElementById("search-to");
    form.addEventListener("submit", function (e) { e.preventDefault(); clearTimeout(timer); run(); });
    input.addEventListener("input", schedule);
    input.addEventListener("focus", function () { ensureManifest().catch(function () {}); });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { panel.hidden = true; input.blur(); }
      if (e.key === "ArrowDown" && !panel.hidden) { var f = list.querySelector("a"); if (f) { e.preventDefault(); f.focus(); } }
    });
    [projSel, kindSel, fromIn, toIn].forEach(function (c) { c.addEventListener("change", run); });
    document.getElementById("search-close").addEventListener("click", function () { panel.hidden = true; input.focus(); });
    panel.addEventListener("keydown", function (e) { if (e.key === "Escape") { panel.hidden = true; input.focus(); } });
  }

  if (document.readyState !== "loading") init(); else document.addEventListener("DOMContentLoaded", init);
})();
