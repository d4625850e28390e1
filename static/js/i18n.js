// The page's sentences for the other scripts (order.js, seatmap.js, live.js), which
// load after this one. The server renders them in the page's language as JSON in
// <body data-sf-text> (views.ScriptText); placeholders in braces ({n}, {label}, ...)
// are filled here, and a count picks the key's _one or _other form.
(function () {
  "use strict";
  var TEXT = {};
  try { TEXT = JSON.parse(document.body.getAttribute("data-sf-text") || "{}"); } catch (e) { TEXT = {}; }

  // text returns the sentence key with each {name} replaced by vals[name].
  function text(key, vals) {
    var s = TEXT[key] || "";
    Object.keys(vals || {}).forEach(function (k) { s = s.split("{" + k + "}").join(String(vals[k])); });
    return s;
  }

  // count returns the form of key for the count n, with {n} replaced by n.
  function count(key, n) { return text(key + (n === 1 ? "_one" : "_other"), { n: n }); }

  window.seatflowText = { text: text, count: count };
})();
