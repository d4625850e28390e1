// The counter screen (views.BoxOfficeSalePage): once a sale is priced, the change due as
// the cash given is typed, in the order's currency (data-total in minor units).
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
