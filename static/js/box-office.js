// The counter screen (views.BoxOfficeSalePage): the seat grid follows the show's seat
// changes (the stream of data-bo-live-url, as static/js/live.js reads it): a seat taken
// elsewhere is greyed and cannot be ticked, one ticked here is unticked and named; a
// freed seat can be ticked again. Without this script the grid is as of the last load.
(function () {
  var grid = document.querySelector('[data-bo-live-url]');
  var note = document.querySelector('[data-bo-live-note]');
  if (!grid || !window.EventSource) return;
  function set(id, state) {
    var input = grid.querySelector('input[name="seat"][value="' + id + '"]');
    if (!input) return null;
    var taken = state !== 'free', lost = taken && input.checked;
    input.closest('.bo-seat').classList.toggle('bo-taken', taken);
    input.disabled = taken;
    if (lost) input.checked = false;
    return lost ? input.closest('.bo-seat').getAttribute('title').split(' · ')[0] : null;
  }
  function tell(lost) {
    if (note && lost.length > 0) note.textContent = 'Taken elsewhere just now, unticked: ' + lost.join(', ') + '.';
  }
  var source = new EventSource(grid.getAttribute('data-bo-live-url'));
  source.addEventListener('snapshot', function (e) {
    var data = JSON.parse(e.data), taken = {}, lost = [];
    data.held.forEach(function (id) { taken[id] = 'held'; });
    data.sold.forEach(function (id) { taken[id] = 'sold'; });
    grid.querySelectorAll('input[name="seat"]').forEach(function (input) {
      var l = set(input.value, taken[input.value] || 'free');
      if (l) lost.push(l);
    });
    grid.setAttribute('data-live', 'open');
    tell(lost);
  });
  source.addEventListener('seats', function (e) {
    var data = JSON.parse(e.data), lost = [];
    Object.keys(data.seats).forEach(function (id) {
      var l = set(id, data.seats[id]);
      if (l) lost.push(l);
    });
    tell(lost);
  });
  window.addEventListener('pagehide', function () { source.close(); });
})();

// Once a sale is priced, the change due as the cash given is typed, in the order's
// currency (data-total in minor units).
(function () {
  var quote = document.querySelector('.bo-quote');
  var given = document.getElementById('bo-given');
  var out = document.getElementById('bo-change');
  if (!given || !out) return;
  function parse(s, digits) {
    s = s.trim();
    if (!/^\d+(\.\d*)?$/.test(s)) return null;
    var parts = s.split('.');
    var frac = (parts[1] || '').slice(0, digits);
    while (frac.length < digits) frac += '0';
    return parseInt(parts[0] + frac, 10);
  }
  function fmt(minor, digits, prefix) {
    var neg = minor < 0;
    minor = Math.abs(minor);
    var s = String(minor);
    if (digits > 0) {
      while (s.length <= digits) s = '0' + s;
      s = s.slice(0, s.length - digits) + '.' + s.slice(s.length - digits);
    }
    return (neg ? '-' : '') + prefix + s;
  }
  function update() {
    var cash = document.querySelector('input[name="tender"][value="cash"]');
    if (!quote || (cash && !cash.checked)) { out.textContent = ''; return; }
    var total = parseInt(quote.dataset.total, 10);
    var digits = parseInt(quote.dataset.digits, 10);
    var g = parse(given.value, digits);
    if (g === null) { out.textContent = ''; return; }
    out.textContent = g >= total ? 'Change due: ' + fmt(g - total, digits, quote.dataset.prefix)
      : 'Short by ' + fmt(total - g, digits, quote.dataset.prefix);
    out.className = 'bo-change' + (g >= total ? '' : ' cash-short');
  }
  given.addEventListener('input', update);
  document.querySelectorAll('input[name="tender"]').forEach(function (r) { r.addEventListener('change', update); });
  update();
})();
