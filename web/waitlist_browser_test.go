package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestWaitlist_BrowserOfferReachesAnOpenPage: a buyer on a sold-out show's page joins
// the waiting list from its panel and reads their place; another buyer cancels; without
// a reload the open page shows the seats held for them with the link to pay, and the
// offer is in their orders.
func TestWaitlist_BrowserOfferReachesAnOpenPage(t *testing.T) {
	a := newTestApp(t, nil)
	show, ids := a.tinyShow("Waitlist Studio", "SSSS.SS", nil)
	first := a.newUser()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", first, map[string]any{"seat_ids": []string{ids["A1"], ids["A2"], ids["A3"], ids["A4"]}}, nil)
	if r.status != 201 {
		t.Fatalf("sell: %d %s", r.status, r.body)
	}
	sold := r.json(t)["order_no"].(string)
	second := a.newUser()
	if r := a.do("POST", "/api/v1/shows/"+show+"/orders", second, map[string]any{"seat_ids": []string{ids["A5"], ids["A6"]}}, nil); r.status != 201 {
		t.Fatalf("sell out: %d %s", r.status, r.body)
	}

	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := a.signIn(ctx, "customer", "/shows/"+show, `#waitlist`); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	screenshot(t, ctx, "waitlist-join")
	if err := chromedp.Do(ctx,
		chromedp.SetValue(css(`#waitlist-quantity`), "2"),
		chromedp.Click(css(`#waitlist button[type="submit"]`)),
		chromedp.WaitVisible(css(`#waitlist[data-waitlist-status="waiting"]`)),
	); err != nil {
		t.Fatalf("join: %v", err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(css(`#waitlist`)))
	if err != nil || !strings.Contains(text, "number 1") {
		t.Fatalf("the panel after joining: %q %v", text, err)
	}
	screenshot(t, ctx, "waitlist-waiting")

	if r := a.do("POST", "/api/v1/orders/"+sold+"/cancel", first, nil, nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(css(`#waitlist[data-waitlist-status="offered"] a[href^="/orders/"]`))); err != nil {
		t.Fatalf("the offer never reached the open page: %v", err)
	}
	text, _ = chromedp.Run(ctx, chromedp.Text(css(`#waitlist`)))
	if !strings.Contains(text, "Seats came back for you") {
		t.Errorf("the offered panel reads %q", text)
	}
	screenshot(t, ctx, "waitlist-offered")
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/orders"),
		chromedp.WaitVisible(css(`main`)),
	); err != nil {
		t.Fatal(err)
	}
	orders, _ := chromedp.Run(ctx, chromedp.Text(css(`main`)))
	if !strings.Contains(orders, "Waitlist Studio") {
		t.Errorf("My orders does not list the offer:\n%s", orders)
	}
	screenshot(t, ctx, "waitlist-my-orders")
}
