// ccreport page behaviour. Never turns transcript text into markup: it only moves, opens and
// re-labels elements the build already escaped (textContent, never innerHTML).
(function () {
  "use strict";
  var root = document.documentElement;
  try {
    var saved = localStorage.getItem("ccreport-theme");
    if (saved === "dark" || saved === "light") root.setAttribute("data-theme", saved);
  } catch (e) { /* file:// storage may be unavailable */ }

  function ready(fn) { if (document.readyState !== "loading") fn(); else document.addEventListener("DOMContentLoaded", fn); }

  // Show times in the reader's time zone; the ISO time stays in the title attribute.
  function localiseTimes(scope) {
    var nodes = (scope || document).querySelectorAll("time[datetime]");
    for (var i = 0; i < nodes.length; i++) {
      var t = nodes[i];
      if (t.dataset.local) continue;
      var d = new Date(t.getAttribute("datetime"));
      if (!isNaN(d)) {
        var pad = function (n) { return (n < 10 ? "0" : "") + n; };
        t.textContent = d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
          pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
        t.dataset.local = "1";
      }
    }
  }

  // A link to #L123 inside a closed <details> opens the way to it.
  function openTarget() {
    if (!location.hash) return;
    var id = location.hash.slice(1);
    // A malformed escape in a hand-made or hostile link (#%E0%A4%A) must not stop the page's script.
    try { id = decodeURIComponent(id); } catch (e) { /* keep it as typed */ }
    var el = callFold(id, document.getElementById(id));
    for (var p = el; p; p = p.parentElement) { if (p.tagName === "DETAILS") p.open = true; }
    if (!el) return;
    markWords(el);
    // Clear of the sticky header: the scroll stops that far above the message.
    var top = document.querySelector("header.top");
    document.documentElement.style.scrollPaddingTop = (top ? top.offsetHeight + 8 : 0) + "px";
    el.scrollIntoView();
    // The browser scrolls to the fragment's own element once the page has loaded: a call's fold,
    // opened here, is shown again after that.
    if (el.classList.contains("called") && document.readyState !== "complete") {
      window.addEventListener("load", function () { el.scrollIntoView(); }, { once: true });
    }
  }

  // A link to the line of a tool call (a sub-agent's "back to the call") names the message or an
  // empty line anchor inside it: the call's own fold is what it means, so that fold is opened and
  // shown (marked until the next link is followed).
  function callFold(id, el) {
    var m = /^L(\d+)$/.exec(id), msg = el && el.closest ? el.closest(".msg") : null;
    var fold = m && msg ? msg.querySelector('details.tool[data-line="' + m[1] + '"]') : null;
    var old = document.querySelectorAll("details.tool.called");
    for (var i = 0; i < old.length; i++) old[i].classList.remove("called");
    if (!fold) return el;
    fold.classList.add("called");
    return fold;
  }

  // A search result's link carries its words (?hl=…): they are marked in the message it opens.
  function markWords(el) {
    var hl = new URLSearchParams(location.search).get("hl");
    if (!hl || el.dataset.marked) return;
    el.dataset.marked = "1";
    var words = hl.toLowerCase().split(/\s+/).filter(Boolean), nodes = [];
    var walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) nodes.push(walk.currentNode);
    nodes.forEach(function (n) {
      var text = n.nodeValue, lower = text.toLowerCase();
      if (!words.some(function (w) { return lower.indexOf(w.replace(/\*$/, "")) >= 0; })) return;
      var frag = document.createDocumentFragment();
      appendMarked(frag, text, words, "hit-mark");
      n.parentNode.replaceChild(frag, n);
    });
  }

  // Text from the search index as the pages show it (render/markup.py): a control character as its
  // Control Picture (NUL → ␀), a bidi control or zero-width character as its code point (⟨U+202E⟩),
  // so no hit's title or snippet is shown reversed or hidden.
  var CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;
  // (a zero-width joiner between two pictographs joins an emoji sequence, 👩‍💻: kept, as the pages do)
  var INVISIBLE = /[\u061c\u200b\u200c\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]|\u200d(?![\u2600-\u27bf\u2b00-\u2bff\u{1f000}-\u{1faff}])|(?<![\u2600-\u27bf\u2b00-\u2bff\u{1f000}-\u{1faff}\ufe0f])\u200d/gu;
  function visible(text) {
    return text.replace(CONTROLS, function (c) { return c === "\x7f" ? "\u2421" : String.fromCharCode(0x2400 + c.charCodeAt(0)); })
      .replace(INVISIBLE, function (c) { return "\u27e8U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + "\u27e9"; });
  }

  // ``text`` appended to ``parent`` as text nodes, each whole word that is one of ``words`` (lower
  // case terms as search.js makes them; "conf*": a completed word, marks the words it starts) in a
  // <mark>: never a piece of a longer word ("py" not inside "pycache"). Never innerHTML: the text
  // is the transcript's. Shared with search.js's snippets through window.ccreport: both are
  // classic scripts (file:// has no modules), app.js loaded first.
  var CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
  function appendMarked(parent, text, words, className) {
    var exact = {}, prefixes = [], inside = [], re = /[\p{L}\p{N}_]+/gu, pos = 0, m;
    words.forEach(function (w) {
      var star = w.slice(-1) === "*", bare = star ? w.slice(0, -1) : w;
      if (!bare) return;
      if (CJK.test(bare)) inside.push(bare);  // CJK terms are pairs of characters inside a run
      else if (star) prefixes.push(bare);
      else exact[bare] = true;
    });
    while ((m = re.exec(text))) {
      var tok = m[0].toLowerCase(), head = Array.from(tok).slice(0, 40).join("");
      var hit = exact[head] === true || prefixes.some(function (p) { return tok.indexOf(p) === 0; }) ||
        inside.some(function (c) { return tok.indexOf(c) >= 0; });
      if (!hit) continue;
      parent.appendChild(document.createTextNode(visible(text.slice(pos, m.index))));
      var mk = document.createElement("mark");
      if (className) mk.className = className;
      mk.textContent = visible(m[0]);
      parent.appendChild(mk);
      pos = m.index + m[0].length;
    }
    parent.appendChild(document.createTextNode(visible(text.slice(pos))));
  }

  ready(function () {
    localiseTimes(document);
    openTarget();
    window.addEventListener("hashchange", openTarget);
    var toggle = document.getElementById("theme-toggle");
    if (toggle) toggle.addEventListener("click", function () {
      var dark = root.getAttribute("data-theme") ? root.getAttribute("data-theme") === "dark"
        : window.matchMedia("(prefers-color-scheme: dark)").matches;
      var next = dark ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try { localStorage.setItem("ccreport-theme", next); } catch (e) { /* ignore */ }
    });
  });
  window.ccreport = { localiseTimes: localiseTimes, mark: appendMarked, visible: visible };
})();
