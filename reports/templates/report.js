(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form) { return; }
  form.hidden = false;
  function wantedStatuses() {
    var wanted = {};
    form.querySelectorAll("input[name=status]").forEach(function (box) { wanted[box.value] = box.checked; });
    return wanted;
  }
  function apply() {
    var wanted = wantedStatuses();
    var op = form.elements.op.value, dtype = form.elements.dtype.value;
    var text = form.elements.text.value.trim().toLowerCase();
    var shown = 0, total = 0;
    document.querySelectorAll("[data-case]").forEach(function (el) {
      var ok = wanted[el.dataset.status] !== false && (!op || el.dataset.op === op) &&
               (!dtype || el.dataset.dtype === dtype) &&
               (!text || el.dataset.case.toLowerCase().indexOf(text) >= 0);
      el.hidden = !ok;
      if (el.tagName === "TR" && el.closest("table.cases")) { total += 1; if (ok) { shown += 1; } }
    });
    document.querySelectorAll("[data-op-row]").forEach(function (row) {
      // an operator none of whose cells holds a wanted status leaves the matrix
      var cells = row.querySelectorAll("td[data-statuses]");
      var any = !cells.length || Array.prototype.some.call(cells, function (td) {
        return td.dataset.statuses.split(" ").some(function (s) { return wanted[s] !== false; });
      });
      row.hidden = (Boolean(op) && row.dataset.opRow !== op) || !any;
    });
    document.querySelectorAll("[data-col-dtype]").forEach(function (el) {
      el.hidden = Boolean(dtype) && el.dataset.colDtype !== dtype;
    });
    document.querySelectorAll("td[data-statuses]").forEach(function (td) {
      var any = td.dataset.statuses.split(" ").some(function (s) { return wanted[s] !== false; });
      td.classList.toggle("dim", !any);
    });
    document.querySelectorAll("[data-group]").forEach(function (group) {
      group.hidden = !group.querySelector("[data-case]:not([hidden])");
    });
    var counter = document.getElementById("shown");
    if (counter) { counter.textContent = "showing " + shown + " of " + total + " cases"; }
  }
  function openTarget() {
    if (!location.hash) { return; }
    var target = document.getElementById(location.hash.slice(1));
    if (target && target.tagName === "DETAILS") { target.open = true; target.hidden = false; }
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  form.querySelectorAll("button[data-expand]").forEach(function (button) {
    button.addEventListener("click", function () {
      var open = button.dataset.expand === "open";
      document.querySelectorAll("details.case").forEach(function (d) { d.open = open; });
    });
  });
  form.querySelector("button[data-reset]").addEventListener("click", function () {
    form.reset();
    apply();
  });
  window.addEventListener("hashchange", openTarget);
  openTarget();
  apply();
})();
