package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserPhone_SelfRefundOnTheOrderPage: at 375 px, the buyer's paid order of a show
// that lets buyers refund themselves tells "Cancel and refund until" the cut-off in the
// cinema's time with a form (no script needed) whose button fits the screen; the page
// passes axe; ticking the box and pressing the button refunds the order, which the page
// then tells.
func TestBrowserPhone_SelfRefundOnTheOrderPage(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	// a show of its own that starts a day and more from the app's now: the first show on
	// sale may start within the two hours of the cut-off, whatever the hour the test runs
	now := a.clock.Now().UTC().Truncate(time.Minute)
	show := a.counterShow(staff, now.Add(-time.Hour), now.Add(30*time.Hour))
	seats := a.freeSeats(show, 2)
	if len(seats) != 2 {
		t.Fatalf("free seats of the show: %v", seats)
	}
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"self_refund_until_h": 2}, nil); r.status != 200 {
		t.Fatalf("set the cut-off: %d %s", r.status, r.body)
	}
	email := fmt.Sprintf("refund%d-%d@example.test", time.Now().UnixNano(), userSeq.Add(1))
	ctx := newBrowser(t)
	if err := chromedp.Do(ctx, phone(),
		chromedp.Navigate(a.base+"/register"),
		chromedp.SendKeys(chromedp.CSS(`#name`), "Robin Refund"),
		chromedp.SendKeys(chromedp.CSS(`#email`), email),
		chromedp.SendKeys(chromedp.CSS(`#password`), "popcorn-and-seats"),
		chromedp.Submit(chromedp.CSS(`#password`)),
		chromedp.WaitReady(chromedp.CSS(`form[action="/logout"]`)),
	); err != nil {
		t.Fatalf("register: %v", err)
	}
	token := a.login(email, "popcorn-and-seats").json(t)["token"].(string)
	no := a.paidOrderOf(show, token, seats)
	if r := a.do("POST", "/api/v1/admin/orders/"+no+"/refund", staff, map[string]any{"reason": "one cannot come", "seat_ids": seats[:1]}, nil); r.status != 200 {
		t.Fatalf("refund of one seat: %d %s", r.status, r.body)
	}

	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/orders/"+no),
		chromedp.WaitVisible(chromedp.CSS(`[data-self-refund]`)),
	); err != nil {
		t.Fatal(err)
	}
	until := evalJS[string](t, ctx, `document.querySelector('.self-refund-until').textContent.trim()`)
	button := evalJS[string](t, ctx, `document.querySelector('[data-self-refund] button[type="submit"]').textContent.trim()`)
	screenshot(t, ctx, "self-refund-phone-375")
	if !strings.HasPrefix(until, "Cancel and refund until ") || !strings.Contains(button, "Cancel and refund") {
		t.Errorf("self-refund block says %q, button %q", until, button)
	}
	if w := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("the order page is %d px wide on a 375-px screen", w)
	}
	if right := evalJS[float64](t, ctx, `document.querySelector('[data-self-refund] button').getBoundingClientRect().right`); right > 375 {
		t.Errorf("the cancel and refund button ends at %.0f px, past the screen", right)
	}
	if over := evalJS[float64](t, ctx, `(() => { const t = document.querySelector('.order-seats').getBoundingClientRect();
		const p = document.querySelector('section.panel.order').getBoundingClientRect(); return t.right - p.right; })()`); over > 0 {
		t.Errorf("the seats table sticks out of its panel by %.0f px", over)
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll('.seat-refunded').length`); n != 1 {
		t.Errorf("%d seats marked refunded, want 1", n)
	}
	checkAxe(t, ctx, "order page with self-refund (375)")

	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-self-refund] input[name="confirm"]`)),
		chromedp.Click(chromedp.CSS(`[data-self-refund] button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-order-ended]`)),
	); err != nil {
		t.Fatal(err)
	}
	ended := evalJS[string](t, ctx, `document.querySelector('[data-order-ended]').textContent.trim()`)
	viewportShot(t, ctx, "self-refund-phone-375-done")
	if !strings.Contains(ended, "You cancelled this order") || evalJS[int](t, ctx, `document.querySelectorAll('[data-self-refund]').length`) != 0 {
		t.Errorf("after the self-refund the page says %q", ended)
	}
	if o := a.do("GET", "/api/v1/orders/"+no, token, nil, nil).json(t); o["status"] != "refunded" || o["end_reason"] != "refunded_by_buyer" {
		t.Errorf("order after the self-refund: %v, %v", o["status"], o["end_reason"])
	}
}
