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
    var el = document.getElementById(id);
    for (var p = el; p; p = p.parentElement) { if (p.tagName === "DETAILS") p.open = true; }
    if (el) el.scrollIntoView();
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
  window.ccreport = { localiseTimes: localiseTimes };
})();
