// ccreport live pages (`ccreport serve --watch`). Inert unless the page came over http(s) from a
// server that says it is live (/__live); never active from file://.
//
// Safety: transcript text is never turned into markup here. A changed page is fetched from the
// same origin, parsed with DOMParser (which runs no script) and the elements the build produced -
// already escaped - are moved in with importNode. Everything this file writes itself uses
// textContent. The page's CSP forbids inline script; this file is the only live code.
//
// Small updates: when the event names the messages that changed on this page (its "fragments"),
// only those are merged: the page's <main> holding just them comes in the event (or, when large,
// from /__fragment). It is merged by id (new ones appended, changed ones replaced, gone ones
// removed) and parsed with DOMParser like a whole page. Updates run one at a time in
// event order; a fragment that is no longer there (a newer update replaced it) or any failure
// falls back to fetching the whole page, which is always right.
//
// One connection per browser: the browser allows ~6 HTTP/1.1 connections per host, and every
// EventSource holds one open. The tabs elect a leader with the Web Locks API; only the leader
// opens /__events and re-broadcasts each event to the other tabs over a BroadcastChannel. Where
// those APIs are missing (e.g. plain http on a non-loopback host is not a secure context), each
// tab opens its own stream; with more than ~5 such tabs open, new page loads wait for a free
// connection.
(function () {
  "use strict";
  if (location.protocol !== "http:" && location.protocol !== "https:") return;
  var body = document.body;
  if (!body) return;
  var root = body.getAttribute("data-root") || "";
  var kind = body.getAttribute("data-page") || "";
  var base = new URL(root, location.href);  // the site root, as a URL
  var here = sitePath(location.href);
  var known = null;        // id → outerHTML of each message as last fetched (the baseline)
  var jobs = [], busy = false;  // updates waiting: {frag: {...}, version: n} or {full: true}
  var lastVersion = -1;
  var ui = {};

  function sitePath(href) {
    var u = new URL(href, location.href);
    var p = u.pathname;
    if (p.slice(-1) === "/") p += "index.html";
    var b = base.pathname;
    if (p.indexOf(b) !== 0) return null;
    try { return decodeURIComponent(p.slice(b.length)); } catch (e) { return p.slice(b.length); }
  }

  function get(url) {
    var ctl = ("AbortController" in window) ? new AbortController() : null;
    var timer = setTimeout(function () { if (ctl) ctl.abort(); }, 10000);  // no request hangs
    return fetch(url, { cache: "no-store", credentials: "same-origin", signal: ctl ? ctl.signal : undefined })
      .then(function (r) { clearTimeout(timer); return r; }, function (e) { clearTimeout(timer); throw e; });
  }

  // --- small UI, built with DOM calls only ---------------------------------------------------
  function status(text) {
    if (!ui.status && !text) return;
    if (!ui.status) {
      ui.status = document.createElement("div");
      ui.status.className = "live-status";
      ui.status.setAttribute("role", "status");
      ui.status.id = "live-status";
      var main = document.getElementById("main");
      if (main) main.parentNode.insertBefore(ui.status, main); else body.appendChild(ui.status);
    }
    ui.status.textContent = text || "";
    ui.status.hidden = !text;
  }

  function newButton() {
    if (!ui.button) {
      ui.button = document.createElement("button");
      ui.button.type = "button";
      ui.button.id = "live-new";
      ui.button.className = "btn primary live-new";
      ui.button.textContent = "New messages ↓";
      ui.button.hidden = true;
      ui.button.addEventListener("click", function () { ui.button.hidden = true; toBottom(); });
      body.appendChild(ui.button);
    }
    return ui.button;
  }

  function newPageNotice(href, label) {
    if (!ui.next) {
      ui.next = document.createElement("p");
      ui.next.className = "live-next";
      ui.next.id = "live-next";
      var a = document.createElement("a");
      a.className = "btn primary";
      ui.next.appendChild(a);
      var end = document.getElementById("end");
      var msgs = document.getElementById("messages");
      (end || msgs).parentNode.insertBefore(ui.next, end ? end.nextSibling : msgs.nextSibling);
    }
    var link = ui.next.firstChild;
    link.href = href;
    link.textContent = "The transcript continues on " + label + " ›";
  }

  function nearBottom() {
    var doc = document.documentElement;
    return (window.innerHeight + window.scrollY) >= doc.scrollHeight - 120;
  }

  function toBottom() { window.scrollTo(0, document.documentElement.scrollHeight); }

  // --- updating a page in place ---------------------------------------------------------------
  function parse(text) { return new DOMParser().parseFromString(text, "text/html"); }

  // Performance marks of the last update (the benchmark's breakdown reads them; one of each kept).
  function mark(name) {
    if (!window.performance || !performance.mark) return;
    try { performance.clearMarks("ccreport-live:" + name); performance.mark("ccreport-live:" + name); } catch (e) {}
  }

  function messageMap(container) {
    var map = {};
    if (!container) return map;
    for (var el = container.firstElementChild; el; el = el.nextElementSibling) {
      if (el.id) map[el.id] = el.outerHTML;
    }
    return map;
  }

  function keepOpen(from, to) {
    // A replaced message keeps the <details> the reader had opened.
    var a = from.querySelectorAll("details"), b = to.querySelectorAll("details");
    if (a.length !== b.length) return;
    for (var i = 0; i < a.length; i++) if (a[i].open) b[i].open = true;
  }

  function swap(selector, doc) {
    var mine = document.querySelectorAll(selector), theirs = doc.querySelectorAll(selector);
    if (mine.length !== theirs.length) return;
    for (var i = 0; i < mine.length; i++) mine[i].replaceWith(document.importNode(theirs[i], true));
  }

  // doc: the whole page, or (frag given) a fragment holding only the messages frag.ids changed.
  // Messages are the direct children of #messages, found by id among those only: a message holds
  // anchors of its other lines (id="L12" inside L11), which must not be taken for messages.
  function mergeTranscript(doc, frag) {
    var cur = document.getElementById("messages"), next = doc.getElementById("messages");
    if (!cur || !next) return;
    var follow = nearBottom();
    var added = 0;
    var hasMessages = !!next.querySelector("[id^='L']");
    var mineById = {}, c, n;
    for (c = cur.firstElementChild; c;) {
      n = c.nextElementSibling;
      // "This transcript is empty." goes once there is a message.
      if (!c.id) { if (hasMessages) c.remove(); } else mineById[c.id] = c;
      c = n;
    }
    var gone = frag ? (frag.removed || []) : [];
    if (!frag) {  // the whole page is the truth: a message it no longer has is gone
      var theirs = {};
      for (c = next.firstElementChild; c; c = c.nextElementSibling) if (c.id) theirs[c.id] = true;
      for (var id in mineById) if (!theirs[id]) gone.push(id);
    }
    gone.forEach(function (id) {
      if (mineById[id]) { mineById[id].remove(); delete mineById[id]; }
      if (known) delete known[id];
    });
    for (var el = next.firstElementChild; el; el = el.nextElementSibling) {
      if (!el.id) continue;
      var mine = mineById[el.id];
      // Whole page: only what differs from the baseline is replaced; a fragment holds nothing else.
      var html = (known || !frag) ? el.outerHTML : null;
      if (!mine) {
        var imported = document.importNode(el, true);
        cur.appendChild(imported);
        if (window.ccreport) window.ccreport.localiseTimes(imported);
        added++;
      } else if (frag || (known && known[el.id] !== undefined && known[el.id] !== html)) {
        // A message that grew (its tool result arrived, more content blocks of the same reply).
        var repl = document.importNode(el, true);
        keepOpen(mine, repl);
        mine.replaceWith(repl);
        if (window.ccreport) window.ccreport.localiseTimes(repl);
      }
      if (frag && known) known[el.id] = html;
    }
    if (!frag) known = messageMap(next);
    var hadNext = !!document.querySelector("nav.pager a[rel=next]");
    swap("p.sub", doc);
    swap("nav.pager", doc);
    var endMine = document.getElementById("end"), endNext = doc.getElementById("end");
    if (endMine && endNext) endMine.replaceWith(document.importNode(endNext, true));
    else if (endMine && !endNext) endMine.remove();
    var nextLink = doc.querySelector("nav.pager a[rel=next]");
    if (nextLink && !hadNext) {
      newPageNotice(nextLink.getAttribute("href"), "page " + nextLink.textContent.replace(/\D/g, ""));
    }
    if (added) {
      if (follow) toBottom();
      else newButton().hidden = false;
    }
    body.setAttribute("data-live-updated", String(Date.now()));
  }

  function replaceMain(doc) {
    var cur = document.getElementById("main"), next = doc.getElementById("main");
    if (!cur || !next) return;
    var y = window.scrollY;
    while (cur.firstChild) cur.removeChild(cur.firstChild);
    for (var el = next.firstChild; el; el = el.nextSibling) cur.appendChild(document.importNode(el, true));
    if (window.ccreport) window.ccreport.localiseTimes(cur);
    window.scrollTo(0, y);
    body.setAttribute("data-live-updated", String(Date.now()));
  }

  function fetchText(url) {
    return get(url).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    });
  }

  function runFull() {
    mark("fetch");
    return fetchText(location.pathname + location.search).then(function (text) {
      mark("fetched");
      var doc = parse(text);
      mark("parsed");
      if (kind === "transcript") mergeTranscript(doc, null); else replaceMain(doc);
      mark("merged");
    });
  }

  function runFragment(job) {
    mark("fetch");
    // Small fragments come in the event; larger ones are fetched (only by pages showing them).
    var text = typeof job.frag.html === "string" ? Promise.resolve(job.frag.html) :
      fetchText(root + "__fragment?url=" + encodeURIComponent(here) + "&v=" + job.version);
    return text.then(function (text) {
      mark("fetched");
      var doc = parse(text);
      mark("parsed");
      mergeTranscript(doc, job.frag);
      mark("merged");
    });
  }

  // One update at a time, in event order. A waiting whole-page fetch covers every later change
  // (it reads the page when it starts), so nothing is queued behind it.
  function enqueue(job) {
    if (jobs.length && jobs[jobs.length - 1].full) return;
    jobs.push(job);
    pump();
  }

  function pump() {
    if (busy || !jobs.length) return;
    busy = true;
    var job = jobs.shift();
    var run = job.full ? runFull() : runFragment(job).catch(function () {
      // Gone (a newer update replaced it) or failed: the whole page is always right.
      jobs.length = 0;
      return runFull();
    });
    run.catch(function () { /* the next change tries again */ }).then(function () {
      busy = false;
      pump();
    });
  }

  function refresh() { enqueue({ full: true }); }

  function onEvent(d) {
    if (!d || typeof d !== "object") return;
    if (typeof d.version === "number") {
      // A hello starts the count again (the server may have restarted); relayed duplicates drop.
      if (d.version <= lastVersion && !d.hello) return;
      lastVersion = d.version;
    }
    status(d.error ? "The last rebuild failed; showing the last good version. " + d.error : "");
    var urls = d.urls || [];
    if (d.hello) body.setAttribute("data-live", "on");
    // hello: this stream just (re)connected; whatever changed while it was away is fetched now.
    if (urls.indexOf(here) < 0 && !d.hello) return;
    mark("event");
    var frag = !d.hello && kind === "transcript" && d.fragments && d.fragments[here];
    if (frag && typeof d.version === "number") enqueue({ frag: frag, version: d.version });
    else refresh();
  }

  // --- one event stream per browser --------------------------------------------------------------
  function connect(relay) {
    var es = new EventSource(root + "__events");
    es.addEventListener("change", function (e) {
      var d;
      try { d = JSON.parse(e.data); } catch (err) { return; }
      if (d && d.hello) body.setAttribute("data-live-stream", "open");  // this tab holds the stream
      onEvent(d);
      if (relay) relay.postMessage(d);
    });
    return es;
  }

  function start(info) {
    body.setAttribute("data-live", "connecting");
    if (info && info.error) status("The last rebuild failed; showing the last good version. " + info.error);
    window.addEventListener("scroll", function () {
      if (ui.button && !ui.button.hidden && nearBottom()) ui.button.hidden = true;
    }, { passive: true });
    // The baseline for "did this message change": the page as the server has it now. Then the
    // stream; its first event (hello) refreshes once more, for changes made in between.
    var baseline = kind !== "transcript" ? Promise.resolve() :
      get(location.pathname + location.search).then(function (r) { return r.ok ? r.text() : null; })
        .then(function (t) { if (t && known === null) known = messageMap(parse(t).getElementById("messages")); })
        .catch(function () {});
    baseline.then(function () {
      var bc = ("BroadcastChannel" in window) ? new BroadcastChannel("ccreport-live") : null;
      if (bc && navigator.locks && navigator.locks.request) {
        bc.onmessage = function (e) { onEvent(e.data); };
        body.setAttribute("data-live", "on");
        // Held until this tab goes away; then the next waiting tab takes over the stream.
        navigator.locks.request("ccreport-live-leader", function () {
          return new Promise(function () { connect(bc); });
        });
      } else {
        connect(null);
      }
    });
  }

  get(root + "__live").then(function (r) { return r.ok ? r.json() : null; })
    .then(function (info) { if (info && info.live === true) start(info); })
    .catch(function () { /* not a live server */ });
})();
