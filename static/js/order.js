// Countdowns to a deadline (the order page, the order list, the demo payment page, a
// waiting-list offer): every [data-countdown] element counts down from the server's
// time, never the client's clock: data-deadline and data-server-now (RFC 3339, UTC) give
// the seconds left when the page was made (data-seconds-left when they are absent), and
// performance.now() measures the time since. While it counts, [data-countdown-static]
// (the "in 4 minutes" rendered on the server, which would go stale) is hidden and the
// hidden [data-countdown-show] parts are shown; [data-countdown-clock] reads m:ss.
// At zero the element is replaced by a notice of its data-expired-text; on the order page
// the status badge turns "expired" and the pay and cancel forms go (the server refuses a
// late payment anyway); with data-reload-at-zero the page is loaded again a moment later,
// so the server tells the state. Without JavaScript the pages show the deadline time.
// Panels swapped in by htmx are counted too.
(function () {
  "use strict";
  // the page's sentences in its language (i18n.js, loaded first); without it the
  // page works as it does without JavaScript
  var i18n = window.seatflowText;
  if (!i18n) return;
  var text = i18n.text, count = i18n.count;

  function pad(n) { return n < 10 ? "0" + n : String(n); }
  function format(s) {
    var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    return h > 0 ? h + ":" + pad(m) + ":" + pad(r) : m + ":" + pad(r);
  }

  function secondsLeft(box) {
    var deadline = Date.parse(box.getAttribute("data-deadline") || "");
    var now = Date.parse(box.getAttribute("data-server-now") || "");
    if (deadline >= 0 && now >= 0) return Math.max(0, (deadline - now) / 1000);
    var s = parseInt(box.getAttribute("data-seconds-left"), 10);
    return s >= 0 ? s : -1;
  }

  function expire(box) {
    if (box.hasAttribute("data-order-countdown")) {
      var status = document.querySelector("[data-order-status]");
      if (status) {
        status.textContent = text("expired");
        status.className = "badge status-expired";
      }
      var actions = document.querySelector(".order-actions");
      if (actions) actions.remove();
    }
    var expired = box.getAttribute("data-expired-text");
    if (expired) {
      var p = document.createElement(box.tagName === "SPAN" ? "span" : "p");
      p.className = box.tagName === "SPAN" ? "muted countdown-over" : "notice countdown-over";
      p.setAttribute("role", "status");
      p.setAttribute("data-countdown-over", "");
      p.textContent = expired;
      box.replaceWith(p);
    }
    if (box.hasAttribute("data-reload-at-zero")) {
      window.setTimeout(function () { window.location.reload(); }, 2000);
    }
  }

  function start(box) {
    if (box.hasAttribute("data-countdown-started")) return;
    var total = secondsLeft(box);
    if (total < 0) return;
    box.setAttribute("data-countdown-started", "");
    var clocks = box.querySelectorAll("[data-countdown-clock]");
    var live = box.querySelector("[data-countdown-live]");
    var began = performance.now();
    var announced = {};
    box.querySelectorAll("[data-countdown-static]").forEach(function (el) { el.hidden = true; });
    box.querySelectorAll("[data-countdown-show]").forEach(function (el) { el.hidden = false; });

    function tick() {
      if (!box.isConnected) return; // swapped away by htmx
      var left = Math.max(0, Math.ceil(total - (performance.now() - began) / 1000));
      clocks.forEach(function (c) { c.textContent = format(left); });
      if (live && (left === 300 || left === 60) && !announced[left]) {
        announced[left] = true;
        live.textContent = count("minutes_left", left / 60);
      }
      if (left <= 0) {
        expire(box);
        return;
      }
      window.setTimeout(tick, 250);
    }
    tick();
  }

  function scan(root) {
    (root || document).querySelectorAll("[data-countdown]").forEach(start);
  }
  scan();
  document.body.addEventListener("htmx:afterSettle", function (e) { scan(e.target); });
})();
