// The page's one pricing of a booking form, with ticket types, on top of the plain
// form (which sends the counts without it). window.seatflowTickets.priced(form) deals
// the seats picked (or best available's quantity in its zone) their ticket types as
// the server deals them (services.Show.DealTicketCounts: each type other than adult,
// by code, to the seats in order whose zone sells it and no other type took; the rest
// adult) and prices each. Every total the page shows is its total: the selection
// summary and the phones' bottom bar (seatmap.js) and the line under the counts
// (views.TicketCounts), which also says when the counts do not fit the seats. After
// each change in a form with counts it tells the form (event seatflow:priced). Loaded
// before seatmap.js; a show that sells adult only has no counts and prices each seat
// at its zone price.
(function () {
  "use strict";

  function money(minor, prefix, decimals) {
    var whole = decimals === 0 ? minor : Math.floor(minor / 100);
    var s = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    if (decimals !== 0) {
      var cents = minor % 100;
      s += "." + (cents < 10 ? "0" : "") + cents;
    }
    return prefix + s;
  }

  function pricesOf(box) {
    if (!box) return {};
    try { return JSON.parse(box.getAttribute("data-ticket-prices") || "{}"); } catch (e) { return {}; }
  }

  // seatsOf returns what the form books, in order: each seat's checkbox (null for best
  // available), zone code and adult price (minor units).
  function seatsOf(form, prices) {
    var boxes = form.querySelectorAll('input[name="seat"]');
    if (boxes.length > 0) {
      return Array.prototype.filter.call(boxes, function (s) { return s.checked && !s.disabled; }).map(function (s) {
        return { seat: s, zone: s.getAttribute("data-zone-code"), adult: parseInt(s.getAttribute("data-price-minor"), 10) || 0 };
      });
    }
    var zone = form.querySelector('[name="zone"]');
    var qty = form.querySelector('[name="quantity"]');
    var n = qty && zone ? parseInt(qty.value, 10) || 0 : 0;
    var list = [];
    for (var i = 0; i < n; i++) list.push({ seat: null, zone: zone.value, adult: (prices.adult || {})[zone.value] || 0 });
    return list;
  }

  // priced returns {seats: [{seat, zone, type, name, price}], total, fits}: name is the
  // type's name ("" for adult), price and total in minor units; fits is false when the
  // counts ask for more tickets than the seats or a type finds too few seats in zones
  // that sell it (the total then counts what could be dealt).
  function priced(form) {
    var box = form.querySelector("[data-ticket-counts]");
    var prices = pricesOf(box);
    var list = seatsOf(form, prices);
    list.forEach(function (x) { x.type = "adult"; x.name = ""; x.price = x.adult; });
    var fits = true, asked = 0;
    var inputs = box ? Array.prototype.slice.call(box.querySelectorAll("[data-ticket-type]")) : [];
    inputs.sort(function (a, b) {
      return a.getAttribute("data-ticket-type") < b.getAttribute("data-ticket-type") ? -1 : 1;
    }).forEach(function (inp) {
      var code = inp.getAttribute("data-ticket-type");
      var need = Math.max(0, parseInt(inp.value, 10) || 0);
      asked += need;
      for (var i = 0; i < list.length && need > 0; i++) {
        var x = list[i];
        if (x.type === "adult" && prices[code] && prices[code][x.zone] !== undefined) {
          x.type = code;
          x.name = inp.getAttribute("data-ticket-name") || code;
          x.price = prices[code][x.zone];
          need--;
        }
      }
      if (need > 0) fits = false;
    });
    if (asked > list.length) fits = false;
    var total = 0;
    list.forEach(function (x) { total += x.price; });
    return { seats: list, total: total, fits: fits };
  }
  window.seatflowTickets = { priced: priced };

  function setUp(box) {
    if (box.hasAttribute("data-ticket-ready")) return;
    box.setAttribute("data-ticket-ready", "");
    var form = box.closest("form");
    var out = box.querySelector("[data-ticket-total]");
    var summary = document.getElementById("selection-summary");
    var prefix = summary ? summary.getAttribute("data-money-prefix") || "" : "";
    var decimals = summary ? parseInt(summary.getAttribute("data-money-decimals"), 10) : 2;
    if (isNaN(decimals)) decimals = 2;

    function update(ev) {
      if (ev && ev.type === "seatflow:priced") return;
      var p = priced(form);
      if (p.seats.length === 0) {
        out.hidden = true;
      } else {
        out.hidden = false;
        out.textContent = p.fits ? box.getAttribute("data-total-text").split("{total}").join(money(p.total, prefix, decimals)) : box.getAttribute("data-too-many");
      }
      form.dispatchEvent(new CustomEvent("seatflow:priced"));
    }
    form.addEventListener("change", update);
    form.addEventListener("input", update);
    update();
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-ticket-counts]"), setUp);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
