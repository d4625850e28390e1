// The seat map on a show's page, on top of the plain form (which works without it):
//  - the selection summary (seats, zones, prices, total, what is left of the limit),
//    read from the data-* attributes the server renders on each seat, each seat at
//    its ticket type's price as tickets.js deals them;
//  - the purchase limit, explained when reached (seats already held or owned count);
//  - a wheelchair space asks for its confirmation box;
//  - under the show's single-seat rule (warn, enforce), the seats the ticked ones
//    would leave as single empty seats, named before the buyer books: by the Book
//    button, right above the map and in the phones' bottom bar;
//  - a tapped seat that cannot be picked says why (sold, held, not for sale);
//  - a seat's accessible name says "selected" once ticked, "available" again after;
//  - one tab stop for the whole map with arrow keys between seats (roving tabindex);
//    Enter ticks or unticks the focused seat like Space (it never sends the form:
//    only the Book button books);
//  - a visible notice naming a ticked seat someone else took (live.js unticks it and
//    tells screen readers), with a close button;
//  - the one-line summary in the phones' bottom bar;
//  - a voucher the server checked on the ticked seats (views.VoucherPreview) prices the
//    summary and the bar while the seats, counts and code stay as checked; a change
//    of seats or counts checks the code again after a pause (a new code waits for
//    Apply), and until it answers they show the plain total;
//  - on an order's exchange page (data-exchange), the order's count of seats as the
//    limit, told as such, and each picked seat at the ticket type and price it takes
//    from the order (data-exchange-seats), not at its list price.
// The map's zoom is static/js/mapzoom.js.
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
  var bar = form.querySelector("[data-bar-summary]");
  var voucherBox = form.querySelector(".voucher-result");
  var voucherButton = form.querySelector(".voucher-row button");
  var voucherRow = summary.querySelector("[data-summary-voucher]");
  var voucherAsked = "", voucherTimer = 0;

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

  // an order changing its seats (data-exchange): the limit is its count of seats
  var exchange = summary.hasAttribute("data-exchange");

  // exchangePrices maps each picked seat to the order seat whose ticket type and price
  // it takes, as the exchange will (views.ExchangePrices): a seat of the order that
  // stays keeps its own; the others take, zone by zone in order, those let go.
  var exchangeSeats = [];
  try { exchangeSeats = JSON.parse(summary.getAttribute("data-exchange-seats") || "[]"); } catch (e) { exchangeSeats = []; }
  function exchangePrices(list) {
    var own = new Map(exchangeSeats.map(function (x) { return [x.id, x]; }));
    var picked = new Set(list.map(function (s) { return s.value; }));
    var free = {};
    exchangeSeats.forEach(function (x) {
      if (!picked.has(x.id)) (free[x.zone] = free[x.zone] || []).push(x);
    });
    var out = new Map();
    list.forEach(function (s) {
      var x = own.get(s.value) || (free[s.getAttribute("data-zone-code")] || []).shift();
      if (x) out.set(s, x);
    });
    return out;
  }

  function limitText(n) {
    var left = Math.max(limit - owned - n, 0);
    if (exchange) return text("exchange_left", { seats: count("seats", n), limit: limit });
    return text(owned > 0 ? "limit_owned" : "limit", { seats: count("seats", n), left: left, limit: limit, owned: owned });
  }

  function reachedText() {
    if (exchange) return text("exchange_reached", { limit: count("seats", limit) });
    return text(owned > 0 ? "reached_owned" : "reached", { limit: limit, owned: owned, selected: limit - owned });
  }

  // selectionKey names what a voucher check priced: the ticked seats, the ticket
  // counts and the code.
  function selectionKey() {
    var parts = picked().map(function (s) { return s.value; });
    Array.prototype.forEach.call(form.querySelectorAll("input[data-ticket-type]"), function (i) { parts.push(i.name + "=" + i.value); });
    var v = form.querySelector('input[name="voucher"]');
    parts.push("voucher=" + (v ? v.value.trim().toUpperCase() : ""));
    return parts.join(",");
  }

  // checkedVoucher is the voucher check's answer when it priced exactly the current
  // selection (its total, saving and code), else null; a check that applied to an
  // earlier selection is asked again after a pause.
  function checkedVoucher(n) {
    var ok = voucherBox && voucherButton && voucherBox.querySelector("[data-voucher-total]");
    if (!ok || n === 0) return null;
    if (voucherBox.getAttribute("data-for") === selectionKey()) return ok;
    var code = form.querySelector('input[name="voucher"]');
    if (!code || code.value.trim().toUpperCase() !== ok.getAttribute("data-voucher-code")) return null; // a new code waits for Apply
    window.clearTimeout(voucherTimer);
    voucherTimer = window.setTimeout(function () {
      if (voucherBox.getAttribute("data-for") !== selectionKey()) voucherButton.click();
    }, 400);
    return null;
  }
  if (voucherButton) {
    // a code typed over a checked one: the old check's words go (the totals go back
    // to the plain ones at once, update below) until Apply checks the new code
    var voucherInput = form.querySelector('input[name="voucher"]');
    if (voucherInput) voucherInput.addEventListener("input", function () {
      var ok = voucherBox.querySelector("[data-voucher-code]");
      if (ok && voucherInput.value.trim().toUpperCase() !== ok.getAttribute("data-voucher-code")) {
        voucherBox.textContent = "";
        voucherBox.removeAttribute("data-for");
      }
    });
    form.addEventListener("htmx:beforeRequest", function (ev) {
      if (ev.target === voucherButton) voucherAsked = selectionKey();
    });
    form.addEventListener("htmx:afterSwap", function (ev) {
      if (ev.target !== voucherBox) return;
      voucherBox.setAttribute("data-for", voucherAsked);
      update();
    });
  }

  // update shows the ticked seats, each at its ticket type's price, and their total as
  // tickets.js prices them (the page's one pricing); counts that do not fit the seats
  // show no total (the line under the counts says why).
  function update() {
    var list = picked();
    var p = window.seatflowTickets ? window.seatflowTickets.priced(form) : null;
    var total = 0, fits = true;
    var priceOf = function (s) { return parseInt(s.getAttribute("data-price-minor"), 10) || 0; };
    var nameOf = function () { return ""; };
    if (p) {
      var by = new Map(p.seats.map(function (x) { return [x.seat, x]; }));
      priceOf = function (s) { return by.has(s) ? by.get(s).price : 0; };
      nameOf = function (s) { return by.has(s) ? by.get(s).name : ""; };
      fits = p.fits;
    }
    if (exchange) {
      var ex = exchangePrices(list);
      priceOf = function (s) { return ex.has(s) ? ex.get(s).price : parseInt(s.getAttribute("data-price-minor"), 10) || 0; };
      nameOf = function (s) { return ex.has(s) ? ex.get(s).name : ""; };
      fits = true;
    }
    while (rows.firstChild) rows.removeChild(rows.firstChild);
    list.forEach(function (s) {
      total += priceOf(s);
      var tr = document.createElement("tr");
      var kind = { wheelchair: text("kind_wheelchair"), companion: text("kind_companion") }[s.getAttribute("data-kind")] || "";
      var name = nameOf(s);
      [s.getAttribute("data-label") + kind + (name ? " · " + name : ""), s.getAttribute("data-zone"), money(priceOf(s))].forEach(function (v, i) {
        var td = document.createElement("td");
        td.textContent = v;
        if (i === 2) td.className = "num";
        tr.appendChild(td);
      });
      rows.appendChild(tr);
    });
    var totalText = fits ? money(total) : "—";
    var v = fits ? checkedVoucher(list.length) : null;
    if (v) totalText = v.getAttribute("data-voucher-total");
    if (voucherRow) {
      voucherRow.hidden = !v;
      voucherRow.querySelector("[data-summary-voucher-code]").textContent = v ? v.getAttribute("data-voucher-code") : "";
      voucherRow.querySelector("[data-summary-saving]").textContent = v ? "−" + v.getAttribute("data-voucher-saving") : "";
    }
    totalCell.textContent = totalText;
    table.hidden = list.length === 0;
    empty.hidden = list.length !== 0;
    var reached = owned + list.length >= limit;
    limitNote.textContent = reached && list.length > 0 ? reachedText() : limitText(list.length);
    limitNote.classList.toggle("limit-reached", reached);
    if (bar) bar.textContent = list.length > 0 ? count("seats", list.length) + " · " + totalText : text("bar_none");
    if (wheelchairBox) {
      var wants = list.some(function (s) { return s.getAttribute("data-kind") === "wheelchair"; });
      wheelchairBox.hidden = !wants;
      var box = wheelchairBox.querySelector("input");
      if (box) box.required = wants;
    }
    strandCheck();
    return { list: list, total: totalText };
  }

  // Single empty seats, with the one definition of services/seats/strand.go (Stranded,
  // GapRefused): only standard seats take part, so a wheelchair space or a companion
  // seat is never stranded and never a free neighbour; an aisle, a gap, the row's end
  // or a held, sold or blocked seat is no free neighbour. A seat is stranded when the
  // ticked seats leave it free with no free neighbour in its row while one of its
  // neighbours is ticked. On one section of a large hall the seats beyond its edges
  // are not on the page: a seat beside them is never named. The server decides; this
  // only warns (under enforce it may still accept when every choice strands a seat).
  var strandNote = form.querySelector("[data-strand-notice]");
  var strandRule = strandNote ? strandNote.getAttribute("data-rule") : "";
  var partial = !!form.querySelector('input[name="section"]');
  var grid = {}; // "row:col" -> the standard seat there
  var rowSeats = {}; // row -> its standard seats, in column order
  var colMin = Infinity, colMax = -Infinity;
  seats.forEach(function (s) {
    if (!s.hasAttribute("data-row")) return; // a pick carried from another section
    var r = rowOf(s), c = colOf(s);
    colMin = Math.min(colMin, c);
    colMax = Math.max(colMax, c);
    if (s.getAttribute("data-kind") !== "standard") return;
    grid[r + ":" + c] = s;
    (rowSeats[r] = rowSeats[r] || []).push(s);
  });
  function beyond(c) { return partial && (c < colMin || c > colMax); }
  function isStandard(s) { return s.getAttribute("data-kind") === "standard" && s.hasAttribute("data-row"); }

  // beside returns the standard seats right beside s in its row: null for none (an
  // aisle, a gap, another kind, the row's end), undefined beyond the section shown.
  function beside(s) {
    var r = rowOf(s), c = colOf(s);
    return [c - 1, c + 1].map(function (n) { return beyond(n) ? undefined : grid[r + ":" + n] || null; });
  }

  // runsOf returns a row's runs of standard seats side by side; an end at the edge of
  // the section shown is open (what lies beyond is unknown).
  var runCache = {};
  function runsOf(row) {
    if (runCache[row]) return runCache[row];
    var runs = [];
    (rowSeats[row] || []).slice().sort(function (a, b) { return colOf(a) - colOf(b); }).forEach(function (s) {
      var last = runs[runs.length - 1];
      if (last && colOf(last.seats[last.seats.length - 1]) === colOf(s) - 1) {
        last.seats.push(s);
      } else {
        runs.push({ seats: [s] });
      }
    });
    runs.forEach(function (run) {
      run.openLeft = beyond(colOf(run.seats[0]) - 1);
      run.openRight = beyond(colOf(run.seats[run.seats.length - 1]) + 1);
    });
    runCache[row] = runs;
    return runs;
  }

  // strandsBeyond: whether run.seats[at], just beyond a window (dir: away from it), is
  // left alone by it (unknown beyond the section: taken as yes).
  function strandsBeyond(run, at, dir, isFree) {
    if (at < 0 || at >= run.seats.length) return dir < 0 ? run.openLeft : run.openRight;
    if (!isFree(run.seats[at])) return false;
    var past = at + dir;
    return past < 0 || past >= run.seats.length || !isFree(run.seats[past]);
  }

  // cleanWindow: whether the runs hold k free seats of zone side by side that strand
  // no seat.
  function cleanWindow(runs, zone, k, isFree) {
    return runs.some(function (run) {
      var streak = 0;
      for (var j = 0; j < run.seats.length; j++) {
        var s = run.seats[j];
        if (!isFree(s) || s.getAttribute("data-zone") !== zone) {
          streak = 0;
          continue;
        }
        streak++;
        if (streak >= k && !strandsBeyond(run, j - k, -1, isFree) && !strandsBeyond(run, j + 1, 1, isFree)) return true;
      }
      return false;
    });
  }

  // stranded returns the seats the chosen ones strand, in hall order, and whether
  // enforce refuses them (a row of a stranded seat offers as many free seats of the
  // zone side by side that strand none); isFree says whether a seat is free before
  // the booking.
  function stranded(chosen, isFree) {
    var picks = {};
    chosen.forEach(function (s) { picks[s.value] = true; });
    function freeAfter(s) { return !!s && isFree(s) && !picks[s.value]; }
    var out = [], named = {};
    chosen.forEach(function (c) {
      if (!isStandard(c)) return;
      beside(c).forEach(function (n) {
        if (!freeAfter(n) || named[n.value]) return;
        var nb = beside(n);
        if (nb[0] === undefined || nb[1] === undefined) return;
        if (!freeAfter(nb[0]) && !freeAfter(nb[1])) {
          named[n.value] = true;
          out.push(n);
        }
      });
    });
    out.sort(function (a, b) { return rowOf(a) - rowOf(b) || colOf(a) - colOf(b); });
    var refused = false;
    if (out.length > 0) {
      var rows = {}, need = {};
      out.forEach(function (s) { rows[rowOf(s)] = true; });
      chosen.forEach(function (c) {
        if (!isStandard(c) || !rows[rowOf(c)]) return;
        var key = rowOf(c) + "|" + c.getAttribute("data-zone");
        need[key] = (need[key] || 0) + 1;
      });
      refused = Object.keys(need).some(function (key) {
        var cut = key.indexOf("|");
        return cleanWindow(runsOf(parseInt(key.slice(0, cut), 10)), key.slice(cut + 1), need[key], isFree);
      });
    }
    return { seats: out, refused: refused };
  }

  // strandCheck names what the ticked seats strand next to the booking button (it
  // also keeps the labels in data-seats and the verdict in data-refused).
  // The same words show right above the map, and shorter in the phones' bottom bar
  // beside Book, so the warning is on screen wherever the buyer is picking.
  var strandMap = form.querySelector("[data-strand-map]");
  var strandBar = form.querySelector("[data-strand-bar]");
  function strandCheck() {
    if (!strandNote) return;
    var got = stranded(picked(), function (s) { return !s.disabled; });
    var labels = got.seats.map(function (s) { return s.getAttribute("data-label"); });
    var refused = strandRule === "enforce" && got.refused;
    strandNote.setAttribute("data-seats", labels.join(" "));
    strandNote.setAttribute("data-refused", refused ? "true" : "false");
    [strandNote, strandMap, strandBar].forEach(function (n) {
      if (!n) return;
      n.classList.toggle("strand-refused", refused);
      n.hidden = labels.length === 0;
    });
    if (labels.length === 0) {
      [strandNote, strandMap, strandBar].forEach(function (n) { if (n) n.textContent = ""; });
      return;
    }
    var seatsText = labels.join(text("list_sep"));
    var key = (refused ? "strand_refused_" : "strand_") + (labels.length === 1 ? "one" : "other");
    strandNote.textContent = text(key, { seats: seatsText });
    if (strandMap) strandMap.textContent = strandNote.textContent;
    if (strandBar) strandBar.textContent = text(refused ? "strand_bar_refused" : "strand_bar", { seats: seatsText });
  }

  // A tapped seat that cannot be picked (sold, held, yours already, not for sale) says
  // so in a visible status note above the map; Book with nothing picked after such a
  // tap says it again instead of sending the form.
  var seatNote = form.querySelector("[data-seat-note]");
  var refusedTap = "";
  function unavailableState(cell) {
    if (cell.classList.contains("seat-sold")) return text("state_sold");
    if (cell.classList.contains("seat-yours")) return text("state_yours");
    if (cell.classList.contains("seat-blocked")) return text("state_blocked");
    return text("state_held");
  }
  function noteSeat(msg) {
    if (!seatNote) return;
    seatNote.hidden = false;
    seatNote.textContent = "";
    window.setTimeout(function () { seatNote.textContent = msg; }, 30);
  }
  form.addEventListener("click", function (ev) {
    var cell = ev.target.closest && ev.target.closest(".seats .seat");
    if (!cell || form.querySelector(".seat-fieldset[disabled]")) return;
    var box = cell.querySelector('input[name="seat"]');
    if (box && !box.disabled) return;
    refusedTap = text("unavailable", { label: cell.getAttribute("data-label"), state: unavailableState(cell) });
    noteSeat(refusedTap);
  });
  form.addEventListener("submit", function (ev) {
    if (!refusedTap || picked().length > 0) return;
    ev.preventDefault();
    noteSeat(text("unavailable_book", { reason: refusedTap }));
  });

  // a seat's accessible name ends with its state: "available" or "selected"
  function srState(s) {
    var name = s.getAttribute("aria-label") || "";
    var from = s.checked ? text("sr_available") : text("sr_selected");
    var to = s.checked ? text("sr_selected") : text("sr_available");
    if (name.slice(-from.length) === from) s.setAttribute("aria-label", name.slice(0, name.length - from.length) + to);
  }
  // A ticked seat someone else took: live.js unticks it, marks it seat-just-taken and
  // sends it a change event, then tells that seats changed (seatflow:seats); the notice
  // names every seat lost since it was last closed.
  var notice = form.querySelector("[data-taken-notice]");
  var lostNow = [], lostShown = [];
  function showTaken() {
    if (!notice || lostNow.length === 0) return;
    lostNow.forEach(function (l) { if (lostShown.indexOf(l) < 0) lostShown.push(l); });
    lostNow = [];
    var key = lostShown.length === 1 ? "taken_notice_one" : "taken_notice_other";
    notice.querySelector("[data-taken-text]").textContent = text(key, { seats: lostShown.join(text("list_sep")) });
    notice.hidden = false;
  }
  if (notice) {
    notice.querySelector("[data-taken-close]").addEventListener("click", function () {
      notice.hidden = true;
      lostShown = [];
      var stop = form.querySelector('.seats input[name="seat"][tabindex="0"]');
      if (stop) stop.focus({ preventScroll: true });
    });
  }

  // tickets.js tells when the ticket counts changed the prices
  form.addEventListener("seatflow:priced", function () { update(); });

  // live.js tells when seats changed state (taken or freed by others)
  form.addEventListener("seatflow:seats", function () {
    strandCheck();
    showTaken();
  });

  form.addEventListener("change", function (ev) {
    var s = ev.target;
    if (!s || s.name !== "seat") return;
    if (s.disabled) { // unticked by live.js: taken by someone else
      var cell = s.closest(".seat");
      if (cell && cell.classList.contains("seat-just-taken")) lostNow.push(s.getAttribute("data-label"));
    }
    var label = s.getAttribute("data-label");
    refusedTap = "";
    if (seatNote) seatNote.hidden = true;
    if (s.checked && owned + picked().length > limit) {
      s.checked = false;
      update();
      say(text("cannot", { label: label, reached: reachedText() }));
      return;
    }
    srState(s);
    var now = update();
    var msg = text(s.checked ? "picked" : "unpicked", { label: label });
    if (s.checked && s.getAttribute("data-kind") === "wheelchair") {
      msg += text("wheelchair");
    }
    msg += text("total", { seats: count("seats", now.list.length), total: now.total });
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
      case "Enter": // ticks like Space; a checkbox's Enter would send the form
        ev.preventDefault();
        if (!s.disabled) s.click();
        return;
      default: return;
    }
    ev.preventDefault();
    if (next) {
      setStop(next);
      next.focus();
    }
  });
  // Enter's keypress is what sends a form from a checkbox (implicit submission): never
  // from a seat
  form.addEventListener("keypress", function (ev) {
    if (ev.target && ev.target.name === "seat" && ev.key === "Enter") ev.preventDefault();
  });
  form.addEventListener("focusin", function (ev) {
    if (ev.target && ev.target.name === "seat" && !ev.target.disabled) setStop(ev.target);
  });

  update();
})();
