// The order page's countdown: it starts from the seconds the server rendered
// (data-seconds-left) and counts with performance.now(), so the client's clock never
// matters. At the deadline the page turns to "expired" and the pay and cancel forms go
// (the server refuses a late payment anyway). Without JavaScript the page shows the
// deadline time.
(function () {
  "use strict";
  // the page's sentences in its language (i18n.js, loaded first); without it the
  // page works as it does without JavaScript
  var i18n = window.seatflowText;
  if (!i18n) return;
  var text = i18n.text, count = i18n.count;
  var box = document.querySelector("[data-countdown]");
  if (!box) return;
  var total = parseInt(box.getAttribute("data-seconds-left"), 10);
  if (!(total >= 0)) return;
  var clock = box.querySelector("[data-countdown-clock]");
  var live = box.querySelector("[data-countdown-live]");
  var shown = box.querySelector(".countdown");
  var start = performance.now();
  var announced = {};
  if (shown) shown.hidden = false;

  function pad(n) { return n < 10 ? "0" + n : String(n); }
  function format(s) {
    var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    return h > 0 ? h + ":" + pad(m) + ":" + pad(r) : m + ":" + pad(r);
  }

  function expire() {
    var status = document.querySelector("[data-order-status]");
    if (status) {
      status.textContent = text("expired");
      status.className = "badge status-expired";
    }
    var actions = document.querySelector(".order-actions");
    if (actions) actions.remove();
    var p = document.createElement("p");
    p.className = "notice";
    p.setAttribute("role", "status");
    p.textContent = box.getAttribute("data-expired-text");
    box.replaceWith(p);
  }

  function tick() {
    var left = Math.max(0, Math.ceil(total - (performance.now() - start) / 1000));
    if (clock) clock.textContent = format(left);
    if (live && (left === 300 || left === 60) && !announced[left]) {
      announced[left] = true;
      live.textContent = count("minutes_left", left / 60);
    }
    if (left <= 0) {
      expire();
      return;
    }
    window.setTimeout(tick, 250);
  }
  tick();
})();
