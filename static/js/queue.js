// queue.js keeps a show's waiting page current while the buyer waits. It follows the
// buyer's entry on the event stream at data-queue-events ("entry" events carry the
// JSON of GET data-queue-api) and, when the stream keeps failing or the browser has
// none, polls data-queue-api every 5 seconds (which also keeps the place). Position,
// waiting count, estimated wait and progress follow each entry; admitted, the page
// moves to the seat map (data-show-url); expired, closed or the sale's opening, it
// reloads (the server renders those states). Sentences come in the page's language
// from the section's data-queue-text (views.QueueScriptText). Without this script
// the page still works: reloading it shows the place, and the seat map lets the buyer
// in once admitted.
(function () {
  'use strict';
  var box = document.querySelector('section[data-queue-state]');
  if (!box) { return; }
  var state = box.getAttribute('data-queue-state');
  if (state !== 'pre' && state !== 'waiting') { return; }

  var TEXT = {};
  try { TEXT = JSON.parse(box.getAttribute('data-queue-text') || '{}'); } catch (e) { TEXT = {}; }
  // text returns the sentence key with each {name} replaced by vals[name].
  function text(key, vals) {
    var s = TEXT[key] || '';
    Object.keys(vals || {}).forEach(function (k) { s = s.split('{' + k + '}').join(String(vals[k])); });
    return s;
  }
  function count(key, n) { return text(key + (n === 1 ? '_one' : '_other'), { n: n }); }

  var apiURL = box.getAttribute('data-queue-api');
  var eventsURL = box.getAttribute('data-queue-events');
  var showURL = box.getAttribute('data-show-url');
  var live = box.querySelector('[data-queue-live]');
  var number = box.querySelector('[data-queue-number]');
  var waiting = box.querySelector('[data-queue-waiting]');
  var wait = box.querySelector('[data-queue-wait]');
  var bar = box.querySelector('[data-queue-progress]');

  var POLL_EVERY = 5000;   // ms between polls without a stream
  var STREAM_TRIES = 3;    // stream failures in a row before polling instead
  var SAY_EVERY = 8000;    // ms between two announcements of a moving position
  var done = false, source = null, failures = 0, pollTimer = null;

  // the place: a moving position is shown and announced (the live region) at most
  // every SAY_EVERY, the latest one last; near the front at once
  var lastPosition = number ? parseInt(number.textContent, 10) || 0 : 0;
  var shownAt = 0, showTimer = null, pending = 0;
  function showPosition(n, now) {
    pending = n;
    var later = shownAt + SAY_EVERY - Date.now();
    if (now || later <= 0) {
      window.clearTimeout(showTimer);
      showTimer = null;
      paint();
    } else if (!showTimer) {
      showTimer = window.setTimeout(function () { showTimer = null; paint(); }, later);
    }
  }
  function paint() {
    if (!pending || done) { return; }
    if (number) { number.textContent = String(pending); }
    if (live) { live.textContent = text('position', { n: pending }); }
    shownAt = Date.now();
    pending = 0;
  }

  // waitText is an estimate's range as views.Lang.QueueWait writes it.
  function waitText(range) {
    var lo = Math.max(range[0], 1), hi = Math.max(range[1], 1);
    if (hi < 60) { return text('wait_seconds', { low: Math.min(lo, hi), high: hi }); }
    var loM = Math.max(Math.floor((lo + 30) / 60), 1), hiM = Math.floor((hi + 59) / 60);
    if (loM >= hiM) { return count('wait_about', hiM); }
    return text('wait_minutes', { low: loM, high: hiM });
  }

  function stop() {
    done = true;
    window.clearTimeout(showTimer);
    if (source) { source.close(); source = null; }
    window.clearTimeout(pollTimer);
  }

  // apply shows one entry (the JSON of GET data-queue-api).
  function apply(e) {
    if (done || !e) { return; }
    if (e.status === 'admitted') {
      stop();
      if (live) { live.textContent = text('admitted'); }
      window.location.assign(showURL);
      return;
    }
    if (e.status !== 'waiting' || (e.sale_opened ? 'waiting' : 'pre') !== state) {
      stop();
      window.location.reload();
      return;
    }
    if (waiting && typeof e.waiting === 'number') { waiting.textContent = count('waiting', e.waiting); }
    if (state !== 'waiting' || typeof e.position !== 'number') { return; }
    var moved = e.position !== lastPosition;
    lastPosition = e.position;
    if (wait && e.estimated_wait_range_s) { wait.textContent = waitText(e.estimated_wait_range_s); }
    if (bar && e.first_position > 0) {
      var pct = Math.floor(Math.max(e.first_position - e.position, 0) * 100 / e.first_position);
      bar.value = pct;
      bar.textContent = pct + '%';
    }
    if (moved) { showPosition(e.position, e.position <= 3); }
  }

  function poll() {
    if (done) { return; }
    fetch(apiURL, { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } })
      .then(function (r) {
        if (r.status === 401 || r.status === 404) { // signed out, or no longer in the queue
          stop();
          window.location.reload();
          return null;
        }
        return r.ok ? r.json() : null;
      })
      .then(apply)
      .catch(function () { /* try again at the next poll */ })
      .then(function () { if (!done) { pollTimer = window.setTimeout(poll, POLL_EVERY); } });
  }

  function startPolling() {
    if (source) { source.close(); source = null; }
    window.clearTimeout(pollTimer);
    poll();
  }

  if (!window.EventSource) {
    pollTimer = window.setTimeout(poll, POLL_EVERY);
  } else {
    source = new EventSource(eventsURL);
    source.addEventListener('entry', function (ev) {
      failures = 0;
      var e = null;
      try { e = JSON.parse(ev.data); } catch (err) { return; }
      apply(e);
    });
    source.addEventListener('error', function () {
      if (done) { return; }
      failures++;
      // a stream the browser gave up on (refused, not an event stream), or one that
      // keeps dropping: poll instead
      if (source.readyState === EventSource.CLOSED || failures >= STREAM_TRIES) { startPolling(); }
    });
  }
  window.addEventListener('pagehide', function () {
    if (source) { source.close(); source = null; }
  });
})();
