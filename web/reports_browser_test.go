package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestReports_Browser: staff open Reports from the console's navigation after two paid
// orders today, one of them sold at the box office, choose by channel, and see the chart
// (one bar a channel) and the table with its totals and the CSV link, at 1280 px and on
// a 375 px phone, without the page scrolling sideways; axe-core finds no serious
// violation; the dashboard shows today online and at the box office side by side. With
// SEATFLOW_SCREENSHOTS set it saves reports-1280, reports-375 and reports-dashboard.
func TestReports_Browser(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(3)
	buyer := a.newUser()
	online := a.orderSeats(buyer, show, seats[:2])
	a.payOrder(buyer, online)
	other := a.newUser()
	counter := a.orderSeats(other, show, seats[2:3])
	a.payOrder(other, counter)
	if _, err := a.DB.Exec("UPDATE orders SET channel = 'box_office' WHERE order_no = ?", counter); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := a.signIn(ctx, "staff", "/admin", `nav.console-nav a[href="/admin/reports"]`); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`nav.console-nav a[href="/admin/reports"]`)),
		chromedp.WaitVisible(css(`#reports-title`)),
		chromedp.SetValue(css(`#r-by`), "channel"),
		chromedp.Submit(css(`#r-by`)),
		chromedp.WaitVisible(css(`#report-table`)),
	); err != nil {
		t.Fatalf("open the report by channel: %v", err)
	}
	for _, w := range axeWidths {
		t.Run(w.name, func(t *testing.T) {
			if err := setViewport(ctx, w); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(css(`#report-table`))); err != nil {
				t.Fatal(err)
			}
			_, main := browserAt(t, ctx, `main`)
			for _, want := range []string{"Online", "Box office", "Total (", "Download CSV", "Gross and net by channel"} {
				if !strings.Contains(main, want) {
					t.Errorf("the report lacks %q", want)
				}
			}
			bars, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll('figure.sales-chart svg')].filter(e => e.getBoundingClientRect().height > 0).reduce((n, e) => n + e.querySelectorAll('g.chart-bar').length, 0)`))
			if err != nil || bars != 2 {
				t.Errorf("%d bars in the one visible chart, want 2 (%v)", bars, err)
			}
			href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#report-csv').getAttribute('href')`))
			if err != nil || !strings.HasPrefix(href, "/admin/reports/sales.csv?") || !strings.Contains(href, "by=channel") {
				t.Errorf("CSV link %q (%v)", href, err)
			}
			overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
			if err != nil || overflow {
				t.Errorf("the page scrolls sideways (%v)", err)
			}
			checkAxe(t, ctx, "reports at "+w.name+" px")
			screenshot(t, ctx, "reports-"+w.name)
		})
	}
	t.Run("dashboard", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/admin"), chromedp.WaitVisible(css(`#channels-today`))); err != nil {
			t.Fatal(err)
		}
		_, panel := browserAt(t, ctx, `#channels-today`)
		for _, want := range []string{"Online", "Box office", "Orders", "Seats", "Net ("} {
			if !strings.Contains(panel, want) {
				t.Errorf("the channels panel lacks %q: %s", want, panel)
			}
		}
		checkAxe(t, ctx, "dashboard with channels")
		screenshot(t, ctx, "reports-dashboard")
	})
}
