// The seat map's size (views/seatmap.templ, views/console_show_seats.templ), on top of
// the plain map, which scrolls both ways without it: the − / Reset / + buttons and a
// two-finger pinch set the map's --zoom, which scales the seat size; the stylesheet
// keeps every seat at least --seat-min (24 px) wide. The point under the fingers (the
// middle of the map for the buttons) stays where it was.
(function () {
  "use strict";
  var MIN = 0.5, MAX = 3, STEP = 1.25;

  document.querySelectorAll("[data-map-scroll]").forEach(function (scroller) {
    var hall = scroller.querySelector(".hall");
    var tools = scroller.parentNode.querySelector("[data-map-zoom]");
    if (!hall) return;
    var zoom = 1;

    function seatSize() {
      var seat = hall.querySelector(".hall-grid > .seats > .seat");
      return seat ? seat.getBoundingClientRect().width : 0;
    }

    // set zooms to z, keeping the map's point at (x, y) (px from the box's top left)
    // in place; it returns whether the seats changed size.
    function set(z, x, y) {
      z = Math.min(MAX, Math.max(MIN, z));
      var before = seatSize();
      var left = scroller.scrollLeft + x, top = scroller.scrollTop + y;
      hall.style.setProperty("--zoom", String(z));
      var after = seatSize();
      if (before > 0 && after !== before) {
        var k = after / before;
        scroller.scrollLeft = left * k - x;
        scroller.scrollTop = top * k - y;
      }
      zoom = z;
      buttons();
      return after !== before;
    }

    function buttons() {
      if (!tools) return;
      var min = parseFloat(getComputedStyle(scroller).getPropertyValue("--seat-min")) || 1.5;
      var rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
      tools.querySelector('[data-zoom="out"]').disabled = zoom <= MIN || seatSize() <= min * rem + 0.5;
      tools.querySelector('[data-zoom="in"]').disabled = zoom >= MAX;
      tools.querySelector('[data-zoom="reset"]').disabled = zoom === 1;
    }

    if (tools) {
      tools.hidden = false;
      tools.addEventListener("click", function (ev) {
        var b = ev.target.closest ? ev.target.closest("[data-zoom]") : null;
        if (!b) return;
        var x = scroller.clientWidth / 2, y = Math.min(scroller.clientHeight, window.innerHeight) / 2;
        var what = b.getAttribute("data-zoom");
        if (what === "reset") {
          set(1, x, y);
        } else if (what === "in") {
          set(zoom * STEP, x, y);
        } else {
          var was = zoom;
          if (!set(zoom / STEP, x, y)) set(was, x, y); // already at the smallest seat
        }
      });
      buttons();
    }

    // a map wider than its box opens at its middle, under the screen's label
    if (scroller.scrollWidth > scroller.clientWidth) {
      scroller.scrollLeft = (scroller.scrollWidth - scroller.clientWidth) / 2;
    }

    // pinch: two fingers on the map
    var pinch = null;
    function spread(t) {
      return Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY);
    }
    scroller.addEventListener("touchstart", function (ev) {
      if (ev.touches.length === 2) pinch = { d: spread(ev.touches), z: zoom };
    }, { passive: true });
    scroller.addEventListener("touchmove", function (ev) {
      if (!pinch || ev.touches.length !== 2) return;
      ev.preventDefault();
      var r = scroller.getBoundingClientRect();
      var x = (ev.touches[0].clientX + ev.touches[1].clientX) / 2 - r.left;
      var y = (ev.touches[0].clientY + ev.touches[1].clientY) / 2 - r.top;
      set(pinch.z * spread(ev.touches) / pinch.d, x, y);
    }, { passive: false });
    scroller.addEventListener("touchend", function (ev) {
      if (ev.touches.length < 2) pinch = null;
    });
    scroller.addEventListener("touchcancel", function () { pinch = null; });
  });
})();
