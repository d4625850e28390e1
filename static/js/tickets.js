// Ticket types on a show's page, on top of the plain form (which sends the counts
// without it): under each form's counts (views.TicketCounts), the total of the seats
// picked (or best available's quantity in its zone) at their types' prices, dealt as
// the server deals them: each type other than adult, by code, to the seats in order
// whose zone sells it; the rest adult. Too many tickets of other types is said there.
(function () {
  "use strict";
  var summary = document.getElementById("selection-summary");
  var prefix = summary ? summary.getAttribute("data-money-prefix") || "" : "";
  var decimals = summary ? parseInt(summary.getAttribute("data-money-decimals"), 10) : 2;
  if (isNaN(decimals)) decimals = 2;

  function money(minor) {
    var whole = decimals === 0 ? minor : Math.floor(minor / 100);
    var s = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    if (decimals !== 0) {
      var cents = minor % 100;
      s += "." + (cents < 10 ? "0" : "") + cents;
    }
    return prefix + s;
  }

  function setUp(box) {
    if (box.hasAttribute("data-ticket-ready")) return; // the script is on the page once per form
    box.setAttribute("data-ticket-ready", "");
    var form = box.closest("form");
    var out = box.querySelector("[data-ticket-total]");
    var prices = {};
    try { prices = JSON.parse(box.getAttribute("data-ticket-prices") || "{}"); } catch (e) { return; }
    var inputs = Array.prototype.slice.call(box.querySelectorAll("[data-ticket-type]"));

    // zones returns the zone of each seat the form books, in order
    function zones() {
      var seats = form.querySelectorAll('input[name="seat"]');
      if (seats.length > 0) {
        return Array.prototype.filter.call(seats, function (s) { return s.checked && !s.disabled; })
          .map(function (s) { return s.getAttribute("data-zone-code"); });
      }
      var zone = form.querySelector('[name="zone"]');
      var qty = form.querySelector('[name="quantity"]');
      var n = qty ? parseInt(qty.value, 10) || 0 : 0;
      var list = [];
      for (var i = 0; i < n && zone; i++) list.push(zone.value);
      return list;
    }

    function update() {
      var list = zones();
      if (list.length === 0) { out.hidden = true; return; }
      var types = list.map(function () { return "adult"; });
      var asked = 0, short = false;
      inputs.slice().sort(function (a, b) {
        return a.getAttribute("data-ticket-type") < b.getAttribute("data-ticket-type") ? -1 : 1;
      }).forEach(function (inp) {
        var code = inp.getAttribute("data-ticket-type");
        var need = Math.max(0, parseInt(inp.value, 10) || 0);
        asked += need;
        for (var i = 0; i < list.length && need > 0; i++) {
          if (types[i] === "adult" && prices[code] && prices[code][list[i]] !== undefined) {
            types[i] = code;
            need--;
          }
        }
        if (need > 0) short = true;
      });
      out.hidden = false;
      if (asked > list.length || short) {
        out.textContent = box.getAttribute("data-too-many");
        return;
      }
      var total = 0;
      for (var i = 0; i < list.length; i++) total += (prices[types[i]] || {})[list[i]] || 0;
      out.textContent = box.getAttribute("data-total-text").split("{total}").join(money(total));
    }

    form.addEventListener("change", update);
    form.addEventListener("input", update);
    update();
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-ticket-counts]"), setUp);
})();
