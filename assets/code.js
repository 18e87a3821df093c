// Syntax colours for code (file contents with their line numbers, markdown code blocks, commands,
// JSON), added when a block is shown.
//
// Why in the browser: most file contents sit in folded tool results that nobody opens, and
// colouring every block at build time with pygments was 40% of a cold build. The build writes a
// block as plain escaped text with a data-lang naming a Prism language (ccreport/codelang.py);
// this file loads Prism (assets/vendor/prism.js, MIT) the first time such a
// block becomes visible and colours it. Blocks inside closed <details> have no layout, so the
// IntersectionObserver reports them only once they are opened and on screen.
//
// Safety: transcript text never becomes markup here. Prism.tokenize returns tokens (strings with a
// type); the spans are made with createElement and filled with textContent, and the class names
// come from the fixed table below (pygments' short names, so the site's one code theme applies).
(function () {
  "use strict";
  var script = document.currentScript;
  var prismUrl = script && script.getAttribute("data-prism");
  var CLASS = {
    comment: "c", prolog: "cp", doctype: "cp", cdata: "cp", shebang: "ch", directive: "cp", macro: "cp",
    keyword: "k", "control-flow": "k", atrule: "k", important: "k", rule: "k", section: "k",
    boolean: "kc", "null": "kc", nil: "kc", builtin: "nb", "class-name": "nc", namespace: "nn",
    "function": "nf", "function-definition": "nf", "generic-function": "nf", decorator: "nd",
    annotation: "nd", attribute: "nd", constant: "no", variable: "nv", parameter: "nv",
    "assign-left": "nv", environment: "nv", property: "na", "attr-name": "na", key: "nt", tag: "nt",
    selector: "nt", table: "nc", string: "s", char: "s", "attr-value": "s", "template-string": "s",
    "triple-quoted-string": "s", url: "s", heredoc: "s", "string-interpolation": "si",
    interpolation: "si", regex: "sr", escape: "se", symbol: "ss", number: "m", date: "m",
    operator: "o", punctuation: "p", entity: "ni", inserted: "gi", deleted: "gd", coord: "gu",
    title: "gh", bold: "gs", italic: "ge", type: "kt", "type-annotation": "kt"
  };
  var waiting = [];     // blocks shown before Prism arrived
  var loading = false;

  function classOf(token) {
    if (CLASS.hasOwnProperty(token.type)) return CLASS[token.type];
    var alias = token.alias;
    if (typeof alias === "string") alias = [alias];
    if (alias) for (var i = 0; i < alias.length; i++) if (CLASS.hasOwnProperty(alias[i])) return CLASS[alias[i]];
    return null;
  }

  // Prism's token tree → [text, class] pieces (the innermost known class wins).
  function flatten(stream, cls, out) {
    if (typeof stream === "string") { out.push([stream, cls]); return out; }
    if (Array.isArray(stream)) { for (var i = 0; i < stream.length; i++) flatten(stream[i], cls, out); return out; }
    return flatten(stream.content, classOf(stream) || cls, out);
  }

  // The pieces cut at line ends: one DocumentFragment per source line.
  function lineFragments(pieces) {
    var lines = [document.createDocumentFragment()];
    pieces.forEach(function (p) {
      var parts = p[0].split("\n");
      for (var i = 0; i < parts.length; i++) {
        if (i > 0) lines.push(document.createDocumentFragment());
        if (!parts[i]) continue;
        var node;
        if (p[1]) { node = document.createElement("span"); node.className = p[1]; node.textContent = parts[i]; }
        else node = document.createTextNode(parts[i]);
        lines[lines.length - 1].appendChild(node);
      }
    });
    return lines;
  }

  // A numbered block: <span class=ln>12</span><span class=lsep>→</span>code\n… → its rows.
  function rows(pre) {
    var out = [], cur = null;
    for (var n = pre.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 1 && n.classList.contains("ln")) { cur = { after: n, nodes: [] }; out.push(cur); }
      else if (n.nodeType === 1 && n.classList.contains("lsep")) { if (cur) cur.after = n; }
      else if (cur) {
        if (n.nodeType !== 3) return null;  // not the plain text the build writes: leave it
        cur.nodes.push(n);
      }
    }
    return out;
  }

  // A code block without line numbers (markdown, a command, JSON): <pre>text</pre> or <pre><code>text</code></pre>.
  function colourPlain(pre, grammar) {
    var box = pre.firstElementChild && pre.firstElementChild.tagName === "CODE" ? pre.firstElementChild : pre;
    for (var n = box.firstChild; n; n = n.nextSibling) if (n.nodeType !== 3) return;  // not plain text: leave it
    var code = box.textContent;
    var lines = lineFragments(flatten(window.Prism.tokenize(code, grammar), null, []));
    var frag = document.createDocumentFragment();
    lines.forEach(function (line, k) {
      if (k > 0) frag.appendChild(document.createTextNode("\n"));
      frag.appendChild(line);
    });
    if (frag.textContent !== code) return;  // never change a character
    while (box.firstChild) box.removeChild(box.firstChild);
    box.appendChild(frag);
  }

  function colour(head) {
    if (head.getAttribute("data-hl") === "done") return;
    head.setAttribute("data-hl", "done");
    var grammar = window.Prism.languages[head.getAttribute("data-lang")];
    if (!grammar) return;
    if (!head.classList.contains("num")) { colourPlain(head, grammar); return; }
    // The folded rest of a long file ("show all N lines") is the same code: one tokenization.
    var pres = [head], more = head.nextElementSibling;
    if (more && more.tagName === "DETAILS") {
      var cont = more.querySelector("pre.cont[data-lang]");
      if (cont) pres.push(cont);
    }
    var all = [];
    for (var i = 0; i < pres.length; i++) {
      var r = rows(pres[i]);
      if (!r) return;
      all = all.concat(r);
    }
    var code = all.map(function (row) {
      var t = row.nodes.map(function (n) { return n.data; }).join("");
      row.newline = t.slice(-1) === "\n";
      return row.newline ? t.slice(0, -1) : t;
    }).join("\n");
    var lines = lineFragments(flatten(window.Prism.tokenize(code, grammar), null, []));
    if (lines.length !== all.length) return;  // never lose a line: keep the plain text
    all.forEach(function (row, k) {
      row.nodes.forEach(function (n) { n.remove(); });
      var frag = lines[k];
      if (row.newline) frag.appendChild(document.createTextNode("\n"));
      row.after.parentNode.insertBefore(frag, row.after.nextSibling);
    });
  }

  function show(head) {
    if (window.Prism && window.Prism.tokenize) { colour(head); return; }
    waiting.push(head);
    if (loading || !prismUrl) return;
    loading = true;
    // Prism would colour the whole page by itself on load (through innerHTML): manual mode.
    window.Prism = window.Prism || {};
    window.Prism.manual = true;
    var s = document.createElement("script");
    s.src = prismUrl;
    s.onload = function () { var w = waiting; waiting = []; w.forEach(colour); };
    document.head.appendChild(s);
  }

  function start() {
    var heads = Array.prototype.filter.call(document.querySelectorAll("pre[data-lang]"), function (p) {
      return !p.classList.contains("cont");
    });
    if (!heads.length) return;
    if (!("IntersectionObserver" in window)) { heads.forEach(show); return; }
    var io = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (!e.isIntersecting) return;
        io.unobserve(e.target);
        show(e.target);
      });
    }, { rootMargin: "600px 0px" });
    heads.forEach(function (p) { io.observe(p); });
    // Blocks added later (live pages) are observed too.
    var main = document.getElementById("messages");
    if (main && "MutationObserver" in window) {
      new MutationObserver(function (ms) {
        ms.forEach(function (m) {
          m.addedNodes.forEach(function (n) {
            if (n.nodeType !== 1) return;
            n.querySelectorAll("pre[data-lang]:not(.cont)").forEach(function (p) {
              if (p.getAttribute("data-hl") !== "done") io.observe(p);
            });
          });
        });
      }).observe(main, { childList: true });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
