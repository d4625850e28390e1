package web

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// qrLoaded is the natural width of the ticket's QR code once the browser has loaded and
// decoded it.
const qrLoaded = `(() => { const i = document.querySelector('.ticket-qr img');
	return i && i.complete && i.naturalWidth > 0 ? i.naturalWidth : 0; })()`

// TestTicket_BrowserShowsAndPrintsTicket: the buyer of a paid order opens the order,
// sees the ticket with its QR code loaded, follows "Print ticket" to the printable page,
// and printing (print media) hides everything but the ticket.
func TestTicket_BrowserShowsAndPrintsTicket(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	buyer := a.demoToken("customer")
	no := a.orderSeats(buyer, show, seats)
	a.payOrder(buyer, no)
	ref := ticketRefOn(a.getPage("/orders/"+no, buyer).body)

	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := a.signIn(ctx, "customer", "/orders/"+no, `.ticket-qr img`); err != nil {
		t.Fatalf("sign in and open the order: %v", err)
	}
	w, err := chromedp.Run(ctx, chromedp.Poll[int](qrLoaded))
	if err != nil || w < 200 {
		t.Fatalf("the QR code on the order page did not load (natural width %d): %v", w, err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(css(`.ticket`)))
	if err != nil || !strings.Contains(text, ref) {
		t.Errorf("the ticket's text lacks the reference %s: %q %v", ref, text, err)
	}
	screenshot(t, ctx, "ticket-order")

	if err := chromedp.Do(ctx,
		chromedp.Click(css(`a[href="/orders/`+no+`/ticket"]`)),
		chromedp.WaitVisible(css(`.ticket-hint`)),
	); err != nil {
		t.Fatalf("follow Print ticket: %v", err)
	}
	if w, err := chromedp.Run(ctx, chromedp.Poll[int](qrLoaded)); err != nil || w < 200 {
		t.Fatalf("the QR code on the printable page did not load (natural width %d): %v", w, err)
	}
	screenshot(t, ctx, "ticket-printable")

	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]bool](`(() => {
		const vis = s => { const e = document.querySelector(s); return !!e && getComputedStyle(e).display !== 'none'; };
		return {header: vis('.site-header'), footer: vis('.site-footer'), hint: vis('.ticket-hint'),
			back: vis('.breadcrumb'), ticket: vis('.ticket'), qr: vis('.ticket-qr img')};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	for part, want := range map[string]bool{"header": false, "footer": false, "hint": false, "back": false, "ticket": true, "qr": true} {
		if shown[part] != want {
			t.Errorf("printed, the %s is shown: %v, want %v", part, shown[part], want)
		}
	}
	screenshot(t, ctx, "ticket-print-media")
}
