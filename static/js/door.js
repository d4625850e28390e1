// door.js runs the door check-in page (/admin/door): it scans tickets' QR codes with the
// device camera (jsQR, static/vendor/jsQR.js) and submits the reference found to the
// page's form, which htmx posts and answers with the result panel. A verdict stays until
// the next scan's verdict replaces it: no timer clears it or the field. A scan made while
// one is being checked waits for that answer, then goes. Without a camera the ticket's
// code (or reference) can be typed; without this script the form posts and the server
// renders the result. window.seatflowDoor.decode(source) is the decoder the camera loop uses (any
// image, video or canvas), exposed so a ticket image can be fed to it.
(function () {
  'use strict';
  var box = document.querySelector('[data-door]');
  if (!box) { return; }
  var form = box.querySelector('[data-door-form]');
  var input = box.querySelector('[data-door-ref]');
  var camera = box.querySelector('[data-door-camera]');
  var video = box.querySelector('[data-door-video]');
  var start = box.querySelector('[data-door-start]');
  var select = box.querySelector('[data-door-show]');
  var canvas = document.createElement('canvas');
  var ctx = canvas.getContext('2d', { willReadFrequently: true });
  var REF = /SF1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]{22}/;
  var inflight = false; // a scan is being checked
  var sent = '';        // what the field held when that scan went
  var queued = '';      // a scan made meanwhile, sent when the answer is in
  var lastRef = '', lastAt = 0;

  // refIn returns the ticket reference inside text (the QR code's text is the reference;
  // a URL carrying one works too), or ''.
  function refIn(text) {
    var m = REF.exec(text || '');
    return m ? m[0] : '';
  }

  // decode reads a QR code from source (an image, video or canvas element) and returns
  // the ticket reference in it, or ''.
  function decode(source) {
    var w = source.videoWidth || source.naturalWidth || source.width;
    var h = source.videoHeight || source.naturalHeight || source.height;
    if (!w || !h || typeof window.jsQR !== 'function') { return ''; }
    var scale = Math.min(1, 800 / Math.max(w, h));
    canvas.width = Math.round(w * scale);
    canvas.height = Math.round(h * scale);
    ctx.drawImage(source, 0, 0, canvas.width, canvas.height);
    var img = ctx.getImageData(0, 0, canvas.width, canvas.height);
    var code = window.jsQR(img.data, img.width, img.height, { inversionAttempts: 'dontInvert' });
    return code ? refIn(code.data) : '';
  }

  // submit puts ref in the form and sends it (htmx posts it; without htmx the form
  // posts); while another scan is being checked it waits for that answer.
  function submit(ref) {
    lastRef = ref;
    lastAt = Date.now();
    if (inflight) { queued = ref; return; }
    input.value = ref;
    if (form.requestSubmit) { form.requestSubmit(); } else { form.submit(); }
  }

  // A typed code sent while a scan is being checked waits too (htmx would drop it).
  document.addEventListener('submit', function (e) {
    if (e.target === form && inflight) {
      e.preventDefault();
      e.stopImmediatePropagation();
      queued = input.value;
    }
  }, true);

  function isDoorRequest(e) { return e.detail && e.detail.elt === form; }
  document.body.addEventListener('htmx:beforeRequest', function (e) {
    if (!isDoorRequest(e)) { return; }
    inflight = true;
    sent = input.value;
    var r = document.getElementById('door-result');
    if (r) { r.classList.add('door-checking'); r.setAttribute('aria-busy', 'true'); }
  });
  // done ends a scan's request: the field is emptied only if it still holds what was
  // sent (a code typed meanwhile stays), and a scan made meanwhile goes now.
  function done() {
    inflight = false;
    var r = document.getElementById('door-result');
    if (r) { r.classList.remove('door-checking'); r.removeAttribute('aria-busy'); }
    if (input.value === sent) { input.value = ''; }
    if (queued) {
      var next = queued;
      queued = '';
      submit(next);
    } else if (camera.hidden) {
      input.focus();
    }
  }
  document.body.addEventListener('htmx:afterRequest', function (e) { if (isDoorRequest(e)) { done(); } });

  // scan looks at the camera's picture once a frame and submits a new reference.
  function scan() {
    if (!inflight && video.readyState >= 2) {
      var ref = decode(video);
      if (ref && !(ref === lastRef && Date.now() - lastAt < 5000)) { submit(ref); }
    }
    requestAnimationFrame(scan);
  }

  function startCamera() {
    navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false }).then(function (stream) {
      video.srcObject = stream;
      camera.hidden = false;
      start.hidden = true;
      return video.play();
    }).then(function () { requestAnimationFrame(scan); }).catch(function () {
      start.hidden = false; // no permission or no camera: typing still works
    });
  }
  if (navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
    start.hidden = false;
    start.addEventListener('click', startCamera);
    startCamera();
  }
  if (select) {
    select.addEventListener('change', function () {
      window.location.href = select.value ? '/admin/shows/' + select.value + '/door' : '/admin/door';
    });
  }
  window.seatflowDoor = { decode: decode, submit: submit, refIn: refIn };
})();
