package web

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDoor_BrowserAdmitsOnceByTypingAndByScanning drives the door page as staff: a typed
// reference admits (green, with the seats and the buyer), the same one again is red
// "Already admitted at HH:MM by <staff>", and the page is ready again without a reload;
// the ticket PNG the app serves, fed to the page's QR decoder (the one the camera loop
// calls), yields the reference and admits that ticket; the counter follows. Desktop and
// a 375-px phone.
func TestDoor_BrowserAdmitsOnceByTypingAndByScanning(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(3)
	buyer := a.newUser()
	no1 := a.orderSeats(buyer, show, seats[:2])
	a.payOrder(buyer, no1)
	no2 := a.orderSeats(buyer, show, seats[2:3])
	a.payOrder(buyer, no2)
	ref1 := ticketRefOn(a.getPage("/orders/"+no1, buyer).body)
	ref2 := ticketRefOn(a.getPage("/orders/"+no2, buyer).body)
	png := a.getPage("/orders/"+no2+"/ticket.png", buyer)
	if ref1 == "" || ref2 == "" || png.status != 200 {
		t.Fatalf("tickets: %q %q, PNG %d", ref1, ref2, png.status)
	}
	labels := a.seatLabels(show, seats[:2])
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	door := "/admin/shows/" + show + "/door"
	if err := a.signIn(ctx, "staff", door, `[data-door-result="ready"]`); err != nil {
		t.Fatalf("sign in to the door: %v", err)
	}
	screenshot(t, ctx, "door-ready")
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return s
	}
	count0 := text(`#door-count`)
	typeRef := func(ref, want string) string {
		t.Helper()
		if err := chromedp.Do(ctx,
			chromedp.WaitVisible(css(`[data-door-result="ready"]`)),
			chromedp.SendKeys(css(`#door-ref`), ref),
			chromedp.Click(css(`.door-form button[type=submit]`)),
			chromedp.WaitVisible(css(`[data-door-result="`+want+`"]`)),
		); err != nil {
			t.Fatalf("type %s, want %s: %v", ref, want, err)
		}
		return text(`#door-result`)
	}

	got := typeRef(ref1, "admitted")
	screenshot(t, ctx, "door-admitted")
	for _, want := range append([]string{"Admitted", "Buyer"}, labels...) {
		if !strings.Contains(got, want) {
			t.Errorf("the green panel %q lacks %q", got, want)
		}
	}
	if c := text(`#door-count`); !strings.HasPrefix(c, "Admitted 1 of ") || c == count0 {
		t.Errorf("counter %q after the first admission (was %q)", c, count0)
	}
	got = typeRef(ref1, "refused")
	screenshot(t, ctx, "door-already-admitted")
	if !strings.Contains(got, "Already admitted at ") || !strings.Contains(got, "by Demo Staff") {
		t.Errorf("the second scan says %q, want already admitted by Demo Staff", got)
	}

	// the scanner: the ticket PNG through the page's decoder, then its submit
	data := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png.body)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(css(`[data-door-result="ready"]`))); err != nil {
		t.Fatalf("ready after the second scan: %v", err)
	}
	decoded, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise((ok, fail) => { const img = new Image();
			img.onload = () => ok(window.seatflowDoor.decode(img)); img.onerror = fail; img.src = `+"`"+data+"`"+`; })`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("decode the ticket PNG in the page: %v", err)
	}
	if decoded != ref2 {
		t.Fatalf("the page's decoder read %q from the ticket PNG, want %q", decoded, ref2)
	}
	if err := chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`window.seatflowDoor.submit(`+"`"+decoded+"`"+`)`),
		chromedp.WaitVisible(css(`[data-door-result="admitted"]`)),
	); err != nil {
		t.Fatalf("admit the scanned ticket: %v", err)
	}
	if c := text(`#door-count`); !strings.HasPrefix(c, "Admitted 2 of ") {
		t.Errorf("counter %q after the scan", c)
	}
	screenshot(t, ctx, "door-scanned")

	// the show's console page links to its door
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin/shows/"+show),
		chromedp.Click(css(`a[href="`+door+`"]`)),
		chromedp.WaitVisible(css(`[data-door-result="ready"]`)),
	); err != nil {
		t.Fatalf("from the show page to its door: %v", err)
	}

	// a phone at the door: the same ticket again is red
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile),
		chromedp.Navigate(a.base+door),
		chromedp.WaitVisible(css(`[data-door-result="ready"]`)),
	); err != nil {
		t.Fatalf("the door on a phone: %v", err)
	}
	screenshot(t, ctx, "door-phone-ready")
	if wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)); err != nil || wide {
		t.Errorf("the door page is wider than a 375-px phone (%v)", err)
	}
	got = typeRef(ref2, "refused")
	screenshot(t, ctx, "door-phone-already-admitted")
	if !strings.Contains(got, "Already admitted at ") {
		t.Errorf("phone, second scan: %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(css(`[data-door-result="ready"]`))); err != nil {
		t.Errorf("the page did not get ready for the next scan: %v", err)
	}
}
