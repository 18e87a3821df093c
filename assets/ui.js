// ccreport keyboard and small conveniences. Moves focus, opens and closes elements the build
// made, copies text to the clipboard; never turns transcript text into markup.
//   j / k  next / previous message       n / p  next / previous page
//   o      toggle the focused (or the current message's first) <details>
//   e / c  expand / collapse all <details> on the page        /  focus the search box
//   s      show everything (bookkeeping, hook output) or not      ?  this list, in a dialog
(function () {
  "use strict";

  // The list the "?" dialog shows: one row per key (the handler is onKey below).
  var KEYS = [
    ["j / k", "next / previous message"], ["n / p", "next / previous page"],
    ["o", "open or close the current fold"], ["e / c", "expand / collapse every fold on the page"],
    ["s", "show everything (bookkeeping, hook output) or hide it again"],
    ["/", "search all transcripts"], ["Esc", "close the search or this list"], ["?", "this list"]
  ];
  var QUIET_KEY = "ccreport-show-all";

  // Messages the reader can see (hidden bookkeeping is skipped).
  function messages() {
    return Array.prototype.slice.call(document.querySelectorAll(".messages > .msg")).filter(function (m) {
      return m.offsetParent !== null;
    });
  }

  function typing(t) {
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }

  // The height the sticky page header covers at the top of the window (0 when it is not sticky,
  // as in print or the narrow layout when it scrolls away).
  function headerHeight() {
    var top = document.querySelector("header.top");
    if (!top || getComputedStyle(top).position !== "sticky") return 0;
    return top.getBoundingClientRect().bottom;
  }

  // The message the reader is at: the focused one, else the first one in view below the header.
  function current(list) {
    var a = document.activeElement;
    var m = a && a.closest ? a.closest(".messages > .msg") : null;
    if (m) return list.indexOf(m);
    var below = Math.max(headerHeight(), 0) + 12;
    for (var i = 0; i < list.length; i++) {
      if (list[i].getBoundingClientRect().bottom > below) return i - 0.5;
    }
    return -1;
  }

  function go(delta) {
    var list = messages();
    if (!list.length) return;
    var at = current(list), i = delta > 0 ? Math.floor(at + 1) : Math.ceil(at - 1);
    if (at % 1 !== 0 && delta > 0) i = Math.ceil(at);
    i = Math.max(0, Math.min(list.length - 1, i));
    var m = list[i];
    if (!m.hasAttribute("tabindex")) m.setAttribute("tabindex", "-1");
    m.focus({ preventScroll: true });
    // Scrolled to just below the sticky header, so the message's own header is not hidden under it
    // (a step's header sits above its box: style.css shows it there on focus).
    var own = m.querySelector(":scope > header"), top = m.getBoundingClientRect().top;
    if (own) top = Math.min(top, own.getBoundingClientRect().top);
    window.scrollBy(0, top - headerHeight() - 8);
    if (m.id && history.replaceState) history.replaceState(null, "", "#" + m.id);
  }

  function follow(rel) {
    var a = document.querySelector('.pager a[rel="' + rel + '"]');
    if (a) location.href = a.href;
  }

  function toggleFocused() {
    var a = document.activeElement, d = a && a.closest ? a.closest("details") : null;
    if (!d && a && a.querySelector) d = a.querySelector("details");
    if (d) d.open = !d.open;
  }

  function all(open) {
    var ds = document.querySelectorAll("main details");
    for (var i = 0; i < ds.length; i++) ds[i].open = open;
  }

  function copy(text, button) {
    function done(ok) {
      var old = button.getAttribute("data-label") || button.textContent;
      button.setAttribute("data-label", old);
      button.classList.add(ok ? "copied" : "copy-failed");
      button.setAttribute("aria-label", ok ? "Copied" : "Copy failed");
      setTimeout(function () { button.classList.remove("copied", "copy-failed"); button.removeAttribute("aria-label"); }, 1500);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallback(text)); });
    } else {
      done(fallback(text));
    }
  }

  function fallback(text) {
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.className = "offscreen";
    document.body.appendChild(ta);
    ta.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(ta);
    return ok;
  }

  // A "copy link" button after each message's permalink.
  function addPermalinkButtons() {
    var links = document.querySelectorAll(".msg > header > a.perma");
    for (var i = 0; i < links.length; i++) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "copylink";
      b.textContent = "copy link";
      b.setAttribute("data-copy-href", links[i].getAttribute("href"));
      b.title = "Copy a permalink to this message";
      links[i].parentNode.insertBefore(b, links[i].nextSibling);
    }
  }

  // --- "show everything", expand / collapse all, the keys dialog ------------------------------------
  function setQuiet(quiet) {
    document.documentElement.classList.toggle("quiet", quiet);
    var b = document.getElementById("show-all");
    if (b) b.setAttribute("aria-pressed", quiet ? "false" : "true");
    try { localStorage.setItem(QUIET_KEY, quiet ? "0" : "1"); } catch (e) { /* file:// storage may be unavailable */ }
  }

  function toggleQuiet() { setQuiet(!document.documentElement.classList.contains("quiet")); }

  var dialog = null;
  function keysDialog() {
    if (dialog) return dialog;
    dialog = document.createElement("dialog");
    dialog.className = "keys";
    dialog.id = "keys-dialog";
    dialog.setAttribute("aria-labelledby", "keys-title");
    var h = document.createElement("h2");
    h.id = "keys-title";
    h.textContent = "Keyboard shortcuts";
    dialog.appendChild(h);
    var table = document.createElement("table");
    KEYS.forEach(function (row) {
      var tr = document.createElement("tr"), k = document.createElement("td"), d = document.createElement("td");
      row[0].split(" / ").forEach(function (key, i) {
        if (i) k.appendChild(document.createTextNode(" / "));
        var kbd = document.createElement("kbd");
        kbd.textContent = key;
        k.appendChild(kbd);
      });
      d.textContent = row[1];
      tr.appendChild(k);
      tr.appendChild(d);
      table.appendChild(tr);
    });
    dialog.appendChild(table);
    var close = document.createElement("button");
    close.type = "button";
    close.className = "btn";
    close.textContent = "Close";
    close.addEventListener("click", function () { dialog.close(); });
    dialog.appendChild(close);
    dialog.addEventListener("click", function (e) { if (e.target === dialog) dialog.close(); });
    document.body.appendChild(dialog);
    return dialog;
  }

  function showKeys() {
    var d = keysDialog();
    if (d.open) d.close(); else if (d.showModal) d.showModal(); else d.setAttribute("open", "");
  }

  function onControl(b) {
    var all_ = b.getAttribute("data-all");
    if (all_) all(all_ === "open");
    else if (b.id === "show-all") toggleQuiet();
    else if (b.hasAttribute("data-keys")) showKeys();
  }

  function onClick(e) {
    var c = e.target.closest ? e.target.closest(".controls button, button[data-keys]") : null;
    if (c) { onControl(c); return; }
    var b = e.target.closest ? e.target.closest("button[data-copy], button[data-copy-href]") : null;
    if (!b) return;
    var text = b.getAttribute("data-copy");
    if (text == null) text = location.href.split("#")[0] + b.getAttribute("data-copy-href");
    copy(text, b);
  }

  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    var k = e.key;
    if (k === "?") { e.preventDefault(); showKeys(); return; }
    if (dialog && dialog.open) return;
    if (k === "/") {
      var q = document.getElementById("search-q");
      if (q) { e.preventDefault(); q.focus(); q.select(); }
    } else if (k === "j") go(1);
    else if (k === "k") go(-1);
    else if (k === "n") follow("next");
    else if (k === "p") follow("prev");
    else if (k === "o") toggleFocused();
    else if (k === "e") all(true);
    else if (k === "c") all(false);
    else if (k === "s") toggleQuiet();
    else return;
  }

  // Printing shows everything: open every <details> for the print, restore afterwards.
  var reopened = [];
  window.addEventListener("beforeprint", function () {
    var ds = document.querySelectorAll("details:not([open])");
    for (var i = 0; i < ds.length; i++) { ds[i].open = true; reopened.push(ds[i]); }
  });
  window.addEventListener("afterprint", function () {
    reopened.forEach(function (d) { d.open = false; });
    reopened = [];
  });

  function init() {
    var shown = null;
    try { shown = localStorage.getItem(QUIET_KEY); } catch (e) { /* ignore */ }
    setQuiet(shown !== "1");
    var controls = document.getElementById("controls");
    if (controls) controls.hidden = false;
    var kb = document.querySelectorAll("button[data-keys]");
    for (var i = 0; i < kb.length; i++) kb[i].hidden = false;
    addPermalinkButtons();
    document.addEventListener("click", onClick);
    document.addEventListener("keydown", onKey);
  }

  if (document.readyState !== "loading") init(); else document.addEventListener("DOMContentLoaded", init);
})();
