/* Sortable and filterable tables (the home's recent sessions and projects, a project's sessions).
   Every <table class="sortable">: a click on a column header sorts the rows by that column (again:
   the other way), a text box above it hides the rows that do not contain what is typed. Without
   scripts the rows stay in the order the page was written in: most recent first. DOM only (rows
   are moved, never rebuilt from markup); works from file://. A cell's data-sort, when present, is
   its sort key (ISO times, plain numbers); else its text, compared as a number when both are. */
(function () {
  "use strict";

  function key(row, col) {
    var cell = row.cells[col];
    if (!cell) return "";
    return cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
  }

  function asNumber(s) {
    var t = s.replace(/[$,\s]/g, "");
    return t !== "" && isFinite(Number(t)) ? Number(t) : null;
  }

  function compare(a, b) {
    var x = asNumber(a), y = asNumber(b);
    if (x !== null && y !== null) return x - y;
    return a.localeCompare(b);
  }

  function sortBy(table, col, button) {
    var body = table.tBodies[0];
    if (!body) return;
    var dir = button.getAttribute("data-dir") === "desc" ? "asc" : "desc";
    var heads = table.querySelectorAll("thead button.sort");
    for (var i = 0; i < heads.length; i++) {
      heads[i].removeAttribute("data-dir");
      heads[i].parentNode.removeAttribute("aria-sort");
    }
    button.setAttribute("data-dir", dir);
    button.parentNode.setAttribute("aria-sort", dir === "asc" ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var c = compare(key(r1, col), key(r2, col));
      return dir === "asc" ? c : -c;
    });
    for (var j = 0; j < rows.length; j++) body.appendChild(rows[j]);
  }

  function headers(table) {
    var ths = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(ths, function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, col, button); });
    });
  }

  function filterBox(table, n) {
    var label = document.createElement("label");
    label.className = "table-filter small";
    var input = document.createElement("input");
    input.type = "search";
    input.id = "table-filter-" + n;
    input.placeholder = "Filter these rows";
    label.appendChild(document.createTextNode("Filter "));
    label.appendChild(input);
    table.parentNode.insertBefore(label, table);
    input.addEventListener("input", function () {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var rows = table.tBodies[0] ? table.tBodies[0].rows : [];
      for (var i = 0; i < rows.length; i++) {
        var text = rows[i].textContent.toLowerCase();
        rows[i].hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
      }
    });
  }

  function init() {
    var tables = document.querySelectorAll("table.sortable");
    for (var i = 0; i < tables.length; i++) {
      headers(tables[i]);
      filterBox(tables[i], i + 1);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
