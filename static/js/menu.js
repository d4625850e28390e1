// The phone's menu buttons (views/layout.templ, views/console_layout.templ): on a narrow
// screen the header's navigation and the console's sections fold behind a button that
// opens and closes them (aria-expanded). Without this script, or on a wide screen,
// everything shows as usual: the folding only starts once the script marks the page
// (html.menu-js), and the CSS folds only on narrow screens.
(function () {
  "use strict";
  var buttons = document.querySelectorAll("[data-menu-toggle]");
  if (buttons.length === 0) return;
  document.documentElement.classList.add("menu-js");
  function setOpen(button, open) {
    var menu = document.getElementById(button.getAttribute("aria-controls"));
    if (!menu) return;
    button.setAttribute("aria-expanded", open ? "true" : "false");
    menu.classList.toggle("menu-open", open);
  }
  Array.prototype.forEach.call(buttons, function (button) {
    button.addEventListener("click", function () {
      setOpen(button, button.getAttribute("aria-expanded") !== "true");
    });
  });
  // Escape closes an open menu and gives the focus back to its button
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "Escape") return;
    Array.prototype.forEach.call(buttons, function (button) {
      var menu = document.getElementById(button.getAttribute("aria-controls"));
      if (button.getAttribute("aria-expanded") === "true" && menu && (menu.contains(document.activeElement) || document.activeElement === button)) {
        setOpen(button, false);
        button.focus();
      }
    });
  });
})();
