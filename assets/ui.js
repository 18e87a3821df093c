// ccreport keyboard and small conveniences. Moves focus, opens and closes elements the build
// made, copies text to the clipboard; never turns transcript text into markup.
//   j / k  next / previous message       n / p  next / previous page
//   o      toggle the focused (or the current message's first) <details>
//   e / c  expand / collapse all <details> on the page        /  focus the search box
(function () {
  "use strict";

  function messages() { return Array.prototype.slice.call(document.querySelectorAll(".messages > .msg")); }

  function typing(t) {
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }

  // The message the reader is at: the focused one, else the first one in view.
  function current(list) {
    var a = document.activeElement;
    var m = a && a.closest ? a.closest(".messages > .msg") : null;
    if (m) return list.indexOf(m);
    for (var i = 0; i < list.length; i++) {
      if (list[i].getBoundingClientRect().bottom > 60) return i - 0.5;
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
    m.scrollIntoView({ block: "start" });
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

  function onClick(e) {
    var b = e.target.closest ? e.target.closest("button[data-copy], button[data-copy-href]") : null;
    if (!b) return;
    var text = b.getAttribute("data-copy");
    if (text == null) text = location.href.split("#")[0] + b.getAttribute("data-copy-href");
    copy(text, b);
  }

  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    var k = e.key;
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
    addPermalinkButtons();
    document.addEventListener("click", onClick);
    document.addEventListener("keydown", onKey);
  }

  if (document.readyState !== "loading") init(); else document.addEventListener("DOMContentLoaded", init);
})();
