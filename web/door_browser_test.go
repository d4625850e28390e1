package web

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDoor_BrowserAdmitsOnceByTypingAndByScanning drives the door page as staff: a typed
// reference admits (green, with the seats and the buyer), the same one again is red
// "Already admitted at HH:MM by <staff>"; the ticket PNG the app serves, fed to the
// page's QR decoder (the one the camera loop calls), yields the reference and admits that
// ticket right after the red verdict, and 3.5 s later (past the 2.5 s after which a
// verdict used to be wiped) the second verdict and what was typed since still show; the
// counter counts seats. On a 375 x 667 phone a ticket's short code typed in the field
// admits it, and the verdict, seats, buyer and order fit the screen without scrolling,
// and so does "Already admitted at … by …".
func TestDoor_BrowserAdmitsOnceByTypingAndByScanning(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(4)
	buyer := a.newUser()
	no1 := a.orderSeats(buyer, show, seats[:2])
	a.payOrder(buyer, no1)
	no2 := a.orderSeats(buyer, show, seats[2:3])
	a.payOrder(buyer, no2)
	no3 := a.orderSeats(buyer, show, seats[3:4])
	a.payOrder(buyer, no3)
	ref1 := ticketRefOn(a.getPage("/orders/"+no1, buyer).body)
	ref2 := ticketRefOn(a.getPage("/orders/"+no2, buyer).body)
	code3 := ticketCodeOn(a.getPage("/orders/"+no3+"/ticket", buyer).body)
	png := a.getPage("/orders/"+no2+"/ticket.png", buyer)
	if ref1 == "" || ref2 == "" || code3 == "" || png.status != 200 {
		t.Fatalf("tickets: %q %q %q, PNG %d", ref1, ref2, code3, png.status)
	}
	labels := a.seatLabels(show, seats[:2])
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	door := "/admin/shows/" + show + "/door"
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	if err := a.signIn(ctx, "staff", door, `[data-door-result="ready"]`); err != nil {
		t.Fatalf("sign in to the door: %v", err)
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return s
	}
	scanID := func() string {
		s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('door-result').getAttribute('data-door-scan') || ''`))
		return s
	}
	// waitNew waits for a verdict other than the one of scan before, of kind want.
	waitNew := func(before, want string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`(() => { const r = document.getElementById('door-result');
				return r && (r.getAttribute('data-door-scan') || '') !== `+"`"+before+"`"+` && r.getAttribute('data-door-result') === `+"`"+want+"`"+`; })()`,
			chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("want a new %s verdict: %v (the page shows %q)", want, err, text(`#door-result`))
		}
	}
	typeRef := func(ref, want string) string {
		t.Helper()
		before := scanID()
		if err := chromedp.Do(ctx,
			chromedp.Evaluate[chromedp.Void](`document.getElementById('door-ref').value = ''`),
			chromedp.SendKeys(css(`#door-ref`), ref),
			chromedp.Click(css(`.door-form button[type=submit]`)),
		); err != nil {
			t.Fatalf("type %s: %v", ref, err)
		}
		waitNew(before, want)
		return text(`#door-result`)
	}
	count0 := text(`#door-count`)
	if !strings.HasPrefix(count0, "Admitted 0 of 4 seats") {
		t.Errorf("counter %q before any admission, want Admitted 0 of 4 seats", count0)
	}

	got := typeRef(ref1, "admitted")
	for _, want := range append([]string{"Admitted", "Buyer", no1}, labels...) {
		if !strings.Contains(got, want) {
			t.Errorf("the green panel %q lacks %q", got, want)
		}
	}
	if c := text(`#door-count`); !strings.HasPrefix(c, "Admitted 2 of 4 seats") {
		t.Errorf("counter %q after admitting 2 seats (was %q)", c, count0)
	}

	// two scans in quick succession: the same ticket again (red), then at once the
	// scanned PNG of the second ticket; 3.5 s later its verdict still shows.
	data := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png.body)
	decoded, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise((ok, fail) => { const img = new Image();
			img.onload = () => ok(window.seatflowDoor.decode(img)); img.onerror = fail; img.src = `+"`"+data+"`"+`; })`, chromedp.EvalAwaitPromise))
	if err != nil || decoded != ref2 {
		t.Fatalf("the page's decoder read %q (%v) from the ticket PNG, want %q", decoded, err, ref2)
	}
	got = typeRef(ref1, "refused")
	if !strings.Contains(got, "Already admitted at ") || !strings.Contains(got, "by Demo Staff") {
		t.Errorf("the second scan says %q, want already admitted by Demo Staff", got)
	}
	before := scanID()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.seatflowDoor.submit(`+"`"+decoded+"`"+`)`)); err != nil {
		t.Fatal(err)
	}
	waitNew(before, "admitted")
	if err := chromedp.Do(ctx, chromedp.SendKeys(css(`#door-ref`), "ABC")); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "door-1280")
	time.Sleep(3500 * time.Millisecond)
	if got := text(`#door-result`); !strings.Contains(got, no2) || !strings.HasPrefix(strings.TrimSpace(got), "Admitted") {
		t.Errorf("3.5 s after the quick second scan the panel says %q, want its verdict (admitted, %s)", got, no2)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('door-ref').value`)); v != "ABC" {
		t.Errorf("what was typed after the verdict became %q, want ABC kept", v)
	}
	if c := text(`#door-count`); !strings.HasPrefix(c, "Admitted 3 of 4 seats") {
		t.Errorf("counter %q after the scan", c)
	}

	// the show's console page links to its door
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin/shows/"+show),
		chromedp.Click(css(`a[href="`+door+`"]`)),
		chromedp.WaitVisible(css(`[data-door-result="ready"]`)),
	); err != nil {
		t.Fatalf("from the show page to its door: %v", err)
	}

	// a phone at the door: the short code typed, then an admitted ticket again
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(375, 667, chromedp.EmulateMobile),
		chromedp.Navigate(a.base+door),
		chromedp.WaitVisible(css(`[data-door-result="ready"]`)),
	); err != nil {
		t.Fatalf("the door on a phone: %v", err)
	}
	if wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > 376 || window.innerWidth > 376`)); err != nil || wide {
		t.Errorf("the door page is wider than a 375-px phone (%v)", err)
	}
	fits := func(what string, sels ...string) {
		t.Helper()
		for _, sel := range sels {
			bottom, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => { const e = document.querySelector(`+"`"+sel+"`"+`);
					if (!e) { return 1e9; } const r = e.getBoundingClientRect();
					return (r.left < 0 || r.right > 376 || e.scrollWidth > e.clientWidth + 1) ? 1e8 : r.bottom + window.scrollY; })()`))
			if err != nil || bottom > 667 {
				t.Errorf("%s: %s ends at %v px (%v), want within 375 x 667 without scrolling", what, sel, bottom, err)
			}
		}
	}
	got = typeRef(strings.ToLower(code3), "admitted")
	if !strings.Contains(got, no3) {
		t.Errorf("phone, the typed code %s admits %q, want order %s", code3, got, no3)
	}
	fits("admitted by code", `#door-result`, `.door-result-title`, `.door-result-seats`, `.door-result-who`, `.door-result-order`)
	got = typeRef(ref1, "refused")
	screenshot(t, ctx, "door-375")
	if !strings.Contains(got, "Already admitted at ") || !strings.Contains(got, "by Demo Staff") {
		t.Errorf("phone, second scan: %q", got)
	}
	fits("already admitted", `#door-result`, `.door-result-title`, `.door-result-who`, `.door-result-order`)
}
