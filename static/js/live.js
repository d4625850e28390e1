// live.js keeps a show's seat map current while it is open. The server streams the
// show's seat changes as Server-Sent Events from data-live-url: "snapshot" (every seat
// that is not free) on connecting, then "seats" (the seats that changed). A seat the
// buyer ticked that someone else takes is unticked and announced. Without this script
// the page still works: the server checks every booking.
(function () {
  'use strict';
  // the page's sentences in its language (i18n.js, loaded first); without it the
  // page works as it does without JavaScript
  var i18n = window.seatflowText;
  if (!i18n) return;
  var text = i18n.text, count = i18n.count;
  var map = document.querySelector('[data-live-url]');
  if (!map || !window.EventSource) { return; }
  var STATES = ['seat-free', 'seat-held', 'seat-sold'];
  var announcer = document.querySelector('[data-seat-live]');
  if (!announcer) {
    announcer = document.createElement('p');
    announcer.className = 'visually-hidden';
    announcer.setAttribute('aria-live', 'polite');
    map.parentNode.insertBefore(announcer, map);
  }

  function inputOf(id) { return map.querySelector('input[name="seat"][value="' + id + '"]'); }

  // show sets one seat's state; it returns the seat's label when the buyer had ticked a
  // seat that is no longer free.
  function show(id, state) {
    var input = inputOf(id);
    if (!input) { return null; }
    var seat = input.closest('.seat');
    if (!seat || seat.classList.contains('seat-blocked')) { return null; }
    var mine = seat.classList.contains('seat-yours');
    if (mine && state !== 'free') { return null; } // the buyer's own hold or sale
    // an order changing its seats: its own seats stay selectable, held or sold as they are
    if (seat.classList.contains('seat-current')) { return null; }
    var lost = null;
    STATES.forEach(function (c) { seat.classList.remove(c); });
    seat.classList.remove('seat-yours');
    if (state === 'free') {
      seat.classList.add('seat-free');
      input.disabled = false;
    } else {
      seat.classList.add(state === 'sold' ? 'seat-sold' : 'seat-held');
      if (input.checked) { lost = seat.getAttribute('data-label'); }
      input.checked = false;
      input.disabled = true;
      if (lost) {
        seat.classList.add('seat-just-taken');
        input.dispatchEvent(new Event('change', { bubbles: true })); // the selection summary follows
      }
    }
    seat.setAttribute('data-state', state);
    return lost;
  }

  function counts(data) {
    document.querySelectorAll('[data-seats-left]').forEach(function (el) {
      el.textContent = String(data.seats_left);
    });
    Object.keys(data.zones || {}).forEach(function (code) {
      var n = data.zones[code];
      document.querySelectorAll('[data-zone-left="' + code + '"]').forEach(function (el) {
        el.textContent = count('seats_left', n);
      });
      document.querySelectorAll('option[data-zone-option="' + code + '"]').forEach(function (el) {
        el.textContent = el.getAttribute('data-zone-text') + ' · ' + count('seats_left', n);
      });
    });
  }

  function announce(lost) {
    if (lost.length === 0) { return; }
    var msg = text(lost.length === 1 ? 'taken_one' : 'taken_other', { seats: lost.join(text('list_sep')) });
    // after the selection summary's own announcement of the change (seatmap.js)
    window.setTimeout(function () { announcer.textContent = msg; }, 80);
  }

  // changed tells the seat map's other checks (seatmap.js: single empty seats) that
  // seat states changed.
  function changed() {
    map.dispatchEvent(new CustomEvent('seatflow:seats', { bubbles: true }));
  }

  var source = new EventSource(map.getAttribute('data-live-url'));
  // data-live: "open" once the stream's snapshot is in, "reconnecting" after it broke
  source.addEventListener('error', function () { map.setAttribute('data-live', 'reconnecting'); });
  source.addEventListener('snapshot', function (e) {
    map.setAttribute('data-live', 'open');
    var data = JSON.parse(e.data);
    var taken = {};
    data.held.forEach(function (id) { taken[id] = 'held'; });
    data.sold.forEach(function (id) { taken[id] = 'sold'; });
    var lost = [];
    map.querySelectorAll('input[name="seat"]').forEach(function (input) {
      var l = show(input.value, taken[input.value] || 'free');
      if (l) { lost.push(l); }
    });
    counts(data);
    announce(lost);
    changed();
  });
  source.addEventListener('seats', function (e) {
    var data = JSON.parse(e.data);
    var lost = [];
    Object.keys(data.seats).forEach(function (id) {
      var l = show(id, data.seats[id]);
      if (l) { lost.push(l); }
    });
    counts(data);
    announce(lost);
    changed();
  });
  window.addEventListener('pagehide', function () { source.close(); });
})();
