/* benchledger site: sort any table.sortable by a header click, filter the records table. No dependencies. */
(function () {
  "use strict";

  function cellKey(row, col) {
    var cell = row.cells[col];
    if (!cell) { return { num: NaN, text: "" }; }
    var raw = cell.getAttribute("data-sort");
    var text = raw === null ? cell.textContent.trim() : raw;
    var num = text === "" ? NaN : Number(text);
    return { num: num, text: text.toLowerCase() };
  }

  function compare(a, b, dir) {
    var aNum = !isNaN(a.num), bNum = !isNaN(b.num);
    if (aNum && bNum) { return (a.num - b.num) * dir; }
    if (aNum !== bNum) { return aNum ? -1 : 1; } /* blanks / unknowns always last */
    return a.text < b.text ? -dir : a.text > b.text ? dir : 0;
  }

  function sortTable(table, th, col) {
    var body = table.tBodies[0];
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var headers = table.tHead.rows[0].cells;
    for (var i = 0; i < headers.length; i++) { headers[i].setAttribute("aria-sort", "none"); }
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (row, index) { return { row: row, key: cellKey(row, col), index: index }; });
    keyed.sort(function (a, b) { return compare(a.key, b.key, dir) || a.index - b.index; });
    var frag = document.createDocumentFragment();
    keyed.forEach(function (item) { frag.appendChild(item.row); });
    body.appendChild(frag);
  }

  function initSort(table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (th, col) {
      var button = th.querySelector("button.sort");
      if (button) { button.addEventListener("click", function () { sortTable(table, th, col); }); }
    });
  }

  function initFilters(form) {
    var counter = document.getElementById(form.getAttribute("data-counter"));
    var noun = form.getAttribute("data-noun") || "experiments";
    var rows;
    if (form.hasAttribute("data-items")) {
      rows = Array.prototype.slice.call(document.querySelectorAll(form.getAttribute("data-items")));
    } else {
      var table = document.getElementById(form.getAttribute("data-table"));
      if (!table || !table.tBodies.length) { return; }
      rows = Array.prototype.slice.call(table.tBodies[0].rows);
    }
    var controls = Array.prototype.slice.call(form.querySelectorAll("[data-filter]"));

    function apply() {
      var shown = 0;
      rows.forEach(function (row) {
        var visible = controls.every(function (control) {
          var want = control.value.trim().toLowerCase();
          if (want === "") { return true; }
          var key = control.getAttribute("data-filter");
          if (key === "text") { return row.textContent.toLowerCase().indexOf(want) !== -1; }
          var values = (row.getAttribute("data-" + key) || "").toLowerCase().split("|");
          return values.indexOf(want) !== -1;
        });
        row.hidden = !visible;
        if (visible) { shown += 1; }
      });
      if (counter) { counter.textContent = shown + " of " + rows.length + " " + noun + " shown"; }
    }

    controls.forEach(function (control) {
      control.addEventListener(control.tagName === "SELECT" ? "change" : "input", apply);
    });
    form.addEventListener("reset", function () { window.setTimeout(apply, 0); });
    form.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
    form.hidden = false;
    apply();
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), initSort);
    Array.prototype.forEach.call(document.querySelectorAll("form.filters[data-table], form.filters[data-items]"), initFilters);
  });
}());
