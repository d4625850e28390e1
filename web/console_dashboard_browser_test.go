package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"seatflow/views"
)

// TestAdminDashboard_Browser: after a customer booked and paid, staff sign in and open
// the dashboard: the chart, today's revenue with the payment and the panels show, on a
// wide window and on a phone-sized one without the page scrolling sideways.
func TestAdminDashboard_Browser(t *testing.T) {
	a := newTestApp(t, nil)
	staffTok := a.demoToken("staff")
	_, buyer, no, _ := a.bookForDashboard(staffTok, 2)
	a.payForDashboard(buyer, no)
	_, _, pendingNo, _ := a.bookForDashboard(staffTok, 1) // one left pending
	if r := a.do("POST", "/api/v1/admin/reconcile", a.demoToken("admin"), map[string]any{"dry_run": true}, nil); r.status != 200 {
		t.Fatalf("reconcile: %d %s", r.status, r.body)
	}
	v := a.dashboard(staffTok)
	amount, _ := v.revenue("today")

	acc := a.accounts["staff"]
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin"),
		chromedp.WaitVisible(css(`#email`)),
		chromedp.SendKeys(css(`#email`), acc.Email),
		chromedp.SendKeys(css(`#password`), acc.Password),
		chromedp.Submit(css(`#password`)),
		chromedp.WaitVisible(css(`#`+views.DashboardPanelsID+` figure.minute-chart`)),
	); err != nil {
		t.Fatalf("sign in and open the dashboard: %v", err)
	}
	for _, size := range []struct {
		name string
		w, h int64
	}{{"wide", 1280, 1000}, {"phone", 390, 844}} {
		if err := chromedp.Do(ctx,
			chromedp.EmulateViewport(size.w, size.h),
			chromedp.Reload(),
			chromedp.WaitVisible(css(`figure.minute-chart`)),
		); err != nil {
			t.Fatalf("%s: %v", size.name, err)
		}
		_, main := browserAt(t, ctx, `main`)
		overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
		if err != nil {
			t.Fatal(err)
		}
		screenshot(t, ctx, "admin-dashboard-"+size.name)
		for _, want := range []string{"Today's shows", views.Money(amount, a.Cfg.Currency), "in the last hour, peak",
			"Pending orders", pendingNo, "Expiry queue", "Last reconciliation run"} {
			if !strings.Contains(main, want) {
				t.Errorf("%s: the dashboard lacks %q", size.name, want)
			}
		}
		if !strings.Contains(main, "Run #"+v.LastRun.RunID) {
			t.Errorf("%s: the last reconciliation run is not shown", size.name)
		}
		links, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('main a[href^="/admin/reconcile"]').length`))
		if err != nil || links != 0 {
			t.Errorf("%s: staff get %d links to reconciliation pages (%v)", size.name, links, err)
		}
		visible, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll('svg.minute-chart-svg')].filter(e => e.getBoundingClientRect().height > 0).length`))
		if err != nil || visible != 1 {
			t.Errorf("%s: %d charts visible, want 1 (%v)", size.name, visible, err)
		}
		if overflow {
			t.Errorf("%s: the page scrolls sideways", size.name)
		}
	}
}
