package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestMailbox_BrowserOpenMessage: an admin opens the development mailbox from the
// console, then a held order_paid e-mail: its HTML shows in the sandboxed frame with
// the QR code, and the text part below.
func TestMailbox_BrowserOpenMessage(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.mailFixture(t)
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := a.signIn(ctx, "admin", "/admin", `nav.console-nav a[href="/admin/mailbox"]`); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	link := fmt.Sprintf(`a[href="/admin/mailbox/%d"]`, f.ids[1])
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`nav.console-nav a[href="/admin/mailbox"]`)),
		chromedp.WaitVisible(css(link)),
	); err != nil {
		t.Fatalf("open the mailbox: %v", err)
	}
	screenshot(t, ctx, "admin-mailbox")
	if err := chromedp.Do(ctx,
		chromedp.Click(css(link)),
		chromedp.WaitVisible(css(`iframe.mail-frame`)),
	); err != nil {
		t.Fatalf("open the e-mail: %v", err)
	}
	// the frame is sandboxed (no scripts in it, an opaque origin): the page can only see
	// its size, so the QR code is checked by the frame's srcdoc holding it
	qrLoaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const f = document.querySelector('iframe.mail-frame');
		return f.getAttribute('srcdoc').includes('src="data:image/png;base64,') && f.getBoundingClientRect().height > 300; })()`))
	if err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(css(`pre.mail-text`)))
	if err != nil {
		t.Fatal(err)
	}
	// the sandboxed frame paints its srcdoc after the page's own load; give it a moment
	// so the picture shows the e-mail (nothing is asserted on the wait)
	_ = chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond))
	screenshot(t, ctx, "admin-mailbox-message")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile, chromedp.EmulateTouch), chromedp.Reload(),
		chromedp.WaitVisible(css(`iframe.mail-frame`))); err != nil {
		t.Fatal(err)
	}
	_ = chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond))
	screenshot(t, ctx, "admin-mailbox-message-375")
	if !qrLoaded || !strings.Contains(text, f.orderNo) || !strings.Contains(text, "票券编号") {
		t.Errorf("QR shown %v; text part:\n%s", qrLoaded, text)
	}
}

// TestMailbox_BrowserAfterCancel: a buyer's order is cancelled; the admin opens the
// mailbox (both e-mails listed) and then the order's "seats held, pay by" e-mail, which
// still reads as it was queued (waiting for payment, Pay now) and never says
// cancelled, while the page beside it says the order is cancelled now. Screenshots:
// mailbox-after-cancel-list and mailbox-after-cancel.
func TestMailbox_BrowserAfterCancel(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	buyer := a.newUser()
	no := a.orderSeats(buyer, show, seats)
	if r := a.do("POST", "/api/v1/orders/"+no+"/cancel", buyer, nil, nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	var created int64
	if err := a.DB.Get(&created, "SELECT id FROM mail_outbox WHERE order_no = ? AND kind = 'order_created'", no); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := a.signIn(ctx, "admin", "/admin/mailbox", fmt.Sprintf(`a[href="/admin/mailbox/%d"]`, created)); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	screenshot(t, ctx, "mailbox-after-cancel-list")
	if err := chromedp.Do(ctx,
		chromedp.Click(css(fmt.Sprintf(`a[href="/admin/mailbox/%d"]`, created))),
		chromedp.WaitVisible(css(`iframe.mail-frame`)),
	); err != nil {
		t.Fatalf("open the e-mail: %v", err)
	}
	_ = chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond))
	screenshot(t, ctx, "mailbox-after-cancel")
	text, err := chromedp.Run(ctx, chromedp.Text(css(`pre.mail-text`)))
	if err != nil {
		t.Fatal(err)
	}
	srcdoc, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('iframe.mail-frame').getAttribute('srcdoc')`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Status: waiting for payment") || !strings.Contains(srcdoc, "Pay now") ||
		strings.Contains(text+srcdoc, "cancelled") {
		t.Errorf("the held order's e-mail after its cancel:\n%s", text)
	}
	// beside the e-mail as written, the page says what became of the order
	if now, err := chromedp.Run(ctx, chromedp.Text(css(`.mail-order-now`))); err != nil || !strings.Contains(now, "now cancelled") {
		t.Errorf("the page does not say the order is cancelled now: %q, %v", now, err)
	}
}
