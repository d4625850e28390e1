// The sections of a large hall's seat map (a stadium is shown a section at a time), on
// top of the plain links (which work without it):
//  - a link to another section, to the overview or to a neighbour carries the seats
//    ticked now, so the picks follow the buyer from section to section;
//  - the map's one tab stop is a seat of this section, never one of the seats ticked
//    in other sections that the form carries along unseen.
(function () {
  "use strict";
  var form = document.querySelector(".seat-form");
  if (!form || !form.querySelector("[data-section-link]")) return;

  function ticked() {
    var out = [];
    form.querySelectorAll('.seats input[name="seat"]').forEach(function (s) {
      if (s.checked && !s.disabled) out.push(s.value);
    });
    return out;
  }

  form.addEventListener("click", function (ev) {
    var link = ev.target.closest ? ev.target.closest("a[data-section-link]") : null;
    if (!link) return;
    var url = new URL(link.href, window.location.href);
    url.searchParams.delete("seat");
    ticked().forEach(function (id) { url.searchParams.append("seat", id); });
    link.href = url.pathname + url.search;
  });

  var visible = Array.prototype.slice.call(form.querySelectorAll('.seats:not(.seats-elsewhere) input[name="seat"]'));
  form.querySelectorAll('.seats-elsewhere input[name="seat"]').forEach(function (s) { s.tabIndex = -1; });
  var enabled = visible.filter(function (s) { return !s.disabled; });
  var hasStop = visible.some(function (s) { return s.tabIndex === 0; });
  if (!hasStop && enabled.length > 0 && !form.querySelector(".seat-fieldset[disabled]")) {
    (enabled.filter(function (s) { return s.checked; })[0] || enabled[0]).tabIndex = 0;
  }
})();
