// vqa-harness leaderboard: sortable columns and model / dataset filters (inlined, no libraries).
(function () {
  "use strict";

  function cellKey(cell) {
    if (!cell) return { num: null, text: "" };
    var raw = cell.getAttribute("data-sort");
    if (raw !== null && raw !== "") {
      var v = parseFloat(raw);
      if (!isNaN(v)) return { num: v, text: "" };
    }
    return { num: null, text: (cell.textContent || "").trim().toLowerCase() };
  }

  function compare(a, b) {
    // Both numbers, or both text (model names): by value.
    if (a.num !== null && b.num !== null) return a.num - b.num;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }

  function sortTable(th) {
    var table = th.closest("table");
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    table.querySelectorAll("thead th").forEach(function (h) { h.setAttribute("aria-sort", "none"); });
    th.setAttribute("aria-sort", dir);
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows);
    var keyed = rows.map(function (row, i) { return { row: row, key: cellKey(row.cells[index]), i: i }; });
    keyed.sort(function (x, y) {
      // A cell without a number ("-", n/a, not measured) in a column of numbers goes last in
      // either direction: sorted descending, the best value is on top, not the missing ones.
      if ((x.key.num === null) !== (y.key.num === null)) return x.key.num === null ? 1 : -1;
      var c = compare(x.key, y.key);
      if (dir === "descending") c = -c;
      return c !== 0 ? c : x.i - y.i;  // stable
    });
    keyed.forEach(function (k) { tbody.appendChild(k.row); });
  }

  // A data-model / data-dataset value: names joined by "|", each percent-encoded (html.tag_list).
  function tags(value) {
    return value.split("|").map(function (t) { return decodeURIComponent(t); });
  }

  function applyFilters() {
    var model = document.getElementById("filter-model");
    var dataset = document.getElementById("filter-dataset");
    var m = model ? model.value : "";
    var d = dataset ? dataset.value : "";
    document.querySelectorAll(".table-block[data-dataset]").forEach(function (block) {
      block.classList.toggle("hidden-by-filter", !!(d && tags(block.getAttribute("data-dataset")).indexOf(d) < 0));
    });
    document.querySelectorAll("table.lb").forEach(function (table) {
      var hideCols = [];
      var heads = table.tHead ? table.tHead.rows[0].cells : [];
      Array.prototype.forEach.call(heads, function (th, i) {
        var tagged = th.getAttribute("data-dataset");
        hideCols[i] = !!(d && tagged && tags(tagged).indexOf(d) < 0);
        th.classList.toggle("hidden-by-filter", hideCols[i]);
      });
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var models = row.getAttribute("data-model");
        var datasets = row.getAttribute("data-dataset");
        var hide = (m && models && tags(models).indexOf(m) < 0) ||
                   (d && datasets && tags(datasets).indexOf(d) < 0);
        row.classList.toggle("hidden-by-filter", !!hide);
        Array.prototype.forEach.call(row.cells, function (cell, i) {
          cell.classList.toggle("hidden-by-filter", !!hideCols[i]);
        });
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("table.sortable thead th").forEach(function (th) {
      th.addEventListener("click", function () { sortTable(th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortTable(th); }
      });
    });
    ["filter-model", "filter-dataset"].forEach(function (id) {
      var el = document.getElementById(id);
      if (el) el.addEventListener("change", applyFilters);
    });
    var ci = document.getElementById("show-ci");
    if (ci) ci.addEventListener("change", function () { document.body.classList.toggle("hide-ci", !ci.checked); });
    document.body.setAttribute("data-ready", "1");
  });
})();
