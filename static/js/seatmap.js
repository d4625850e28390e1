// The seat map on a show's page, on top of the plain form (which works without it):
//  - the selection summary (seats, zones, prices, total, what is left of the limit),
//    read from the data-* attributes the server renders on each seat;
//  - the purchase limit, explained when reached (seats already held or owned count);
//  - a wheelchair space asks for its confirmation box;
//  - one tab stop for the whole map with arrow keys between seats (roving tabindex);
//  - the full-size / fit-to-screen toggle.
(function () {
  "use strict";
  // the page's sentences in its language (i18n.js, loaded first); without it the
  // page works as it does without JavaScript
  var i18n = window.seatflowText;
  if (!i18n) return;
  var text = i18n.text, count = i18n.count;
  var form = document.querySelector(".seat-form");
  var summary = document.getElementById("selection-summary");
  if (!form || !summary) return;
  var seats = Array.prototype.slice.call(form.querySelectorAll('.seats input[name="seat"]'));
  var limit = parseInt(summary.getAttribute("data-limit"), 10) || 0;
  var owned = parseInt(summary.getAttribute("data-owned"), 10) || 0;
  var prefix = summary.getAttribute("data-money-prefix") || "";
  var decimals = parseInt(summary.getAttribute("data-money-decimals"), 10);
  if (isNaN(decimals)) decimals = 2;
  var live = summary.querySelector("[data-seat-live]");
  var limitNote = summary.querySelector("[data-summary-limit]");
  var rows = summary.querySelector("[data-summary-rows]");
  var table = summary.querySelector("[data-summary-table]");
  var empty = summary.querySelector("[data-summary-empty]");
  var totalCell = summary.querySelector("[data-summary-total]");
  var wheelchairBox = form.querySelector("[data-wheelchair-confirm]");

  function money(minor) {
    var neg = minor < 0 ? "-" : "";
    minor = Math.abs(minor);
    var whole = decimals === 0 ? minor : Math.floor(minor / 100);
    var s = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    if (decimals !== 0) {
      var cents = minor % 100;
      s += "." + (cents < 10 ? "0" : "") + cents;
    }
    return neg + prefix + s;
  }

  function picked() {
    return seats.filter(function (s) { return s.checked && !s.disabled; });
  }

  function say(text) {
    if (!live) return;
    live.textContent = "";
    window.setTimeout(function () { live.textContent = text; }, 30);
  }

  function limitText(n) {
    var left = Math.max(limit - owned - n, 0);
    return text(owned > 0 ? "limit_owned" : "limit", { seats: count("seats", n), left: left, limit: limit, owned: owned });
  }

  function reachedText() {
    return text(owned > 0 ? "reached_owned" : "reached", { limit: limit, owned: owned, selected: limit - owned });
  }

  function update() {
    var list = picked();
    var total = 0;
    while (rows.firstChild) rows.removeChild(rows.firstChild);
    list.forEach(function (s) {
      total += parseInt(s.getAttribute("data-price-minor"), 10) || 0;
      var tr = document.createElement("tr");
      var kind = { wheelchair: text("kind_wheelchair"), companion: text("kind_companion") }[s.getAttribute("data-kind")] || "";
      [s.getAttribute("data-label") + kind, s.getAttribute("data-zone"), s.getAttribute("data-price")].forEach(function (v, i) {
        var td = document.createElement("td");
        td.textContent = v;
        if (i === 2) td.className = "num";
        tr.appendChild(td);
      });
      rows.appendChild(tr);
    });
    totalCell.textContent = money(total);
    table.hidden = list.length === 0;
    empty.hidden = list.length !== 0;
    var reached = owned + list.length >= limit;
    limitNote.textContent = reached && list.length > 0 ? reachedText() : limitText(list.length);
    limitNote.classList.toggle("limit-reached", reached);
    if (wheelchairBox) {
      var wants = list.some(function (s) { return s.getAttribute("data-kind") === "wheelchair"; });
      wheelchairBox.hidden = !wants;
      var box = wheelchairBox.querySelector("input");
      if (box) box.required = wants;
    }
    return { list: list, total: total };
  }

  form.addEventListener("change", function (ev) {
    var s = ev.target;
    if (!s || s.name !== "seat") return;
    var label = s.getAttribute("data-label");
    if (s.checked && owned + picked().length > limit) {
      s.checked = false;
      update();
      say(text("cannot", { label: label, reached: reachedText() }));
      return;
    }
    var now = update();
    var msg = text(s.checked ? "picked" : "unpicked", { label: label });
    if (s.checked && s.getAttribute("data-kind") === "wheelchair") {
      msg += text("wheelchair");
    }
    msg += text("total", { seats: count("seats", now.list.length), total: money(now.total) });
    msg += text("left", { left: Math.max(limit - owned - now.list.length, 0), limit: limit });
    say(msg);
  });

  // roving tabindex: the map is one tab stop; arrows move between free seats
  var enabled = function () { return seats.filter(function (s) { return !s.disabled; }); };
  function rowOf(s) { return parseInt(s.getAttribute("data-row"), 10); }
  function colOf(s) { return parseInt(s.getAttribute("data-col"), 10); }
  function setStop(target) {
    seats.forEach(function (s) { s.tabIndex = s === target ? 0 : -1; });
  }
  var first = enabled().filter(function (s) { return s.checked; })[0] || enabled()[0];
  if (first && !form.querySelector(".seat-fieldset[disabled]")) setStop(first);
  var scroller = form.querySelector(".seatmap-scroll");

  function nearest(from, dr, dc) {
    var r0 = rowOf(from), c0 = colOf(from), best = null, bestScore = Infinity;
    enabled().forEach(function (s) {
      var r = rowOf(s), c = colOf(s);
      if (s === from) return;
      if (dc !== 0) {
        if (r !== r0 || (c - c0) * dc <= 0) return;
        var d = Math.abs(c - c0);
        if (d < bestScore) { bestScore = d; best = s; }
      } else {
        if ((r - r0) * dr <= 0) return;
        var score = Math.abs(r - r0) * 1000 + Math.abs(c - c0);
        if (score < bestScore) { bestScore = score; best = s; }
      }
    });
    return best;
  }

  form.addEventListener("keydown", function (ev) {
    var s = ev.target;
    if (!s || s.name !== "seat") return;
    var next = null;
    switch (ev.key) {
      case "ArrowLeft": next = nearest(s, 0, -1); break;
      case "ArrowRight": next = nearest(s, 0, 1); break;
      case "ArrowUp": next = nearest(s, -1, 0); break;
      case "ArrowDown": next = nearest(s, 1, 0); break;
      case "Home": next = enabled().filter(function (x) { return rowOf(x) === rowOf(s); })[0]; break;
      case "End": var row = enabled().filter(function (x) { return rowOf(x) === rowOf(s); }); next = row[row.length - 1]; break;
      default: return;
    }
    ev.preventDefault();
    if (next) {
      setStop(next);
      next.focus();
    }
  });
  form.addEventListener("focusin", function (ev) {
    if (ev.target && ev.target.name === "seat" && !ev.target.disabled) setStop(ev.target);
  });

  // fit-to-screen by default; the toggle shows the full-size map, scrolling sideways
  var toggle = form.querySelector("[data-map-size]");
  if (toggle && scroller) {
    toggle.hidden = false;
    toggle.addEventListener("click", function () {
      var full = scroller.classList.toggle("map-full");
      toggle.setAttribute("aria-pressed", full ? "true" : "false");
      toggle.textContent = text(full ? "map_fit" : "map_full");
      // the full-size map opens at its middle, under the screen's label
      scroller.scrollLeft = full ? (scroller.scrollWidth - scroller.clientWidth) / 2 : 0;
    });
  }

  update();
})();
