package web

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestCinemaChainBrowser_NewShowFormSwapsTheHallsZone: choosing the London hall in the
// new-show form swaps in, without a reload, London's zone hint, prices in GBP and the
// sale opening at London's now (the form was filled in at the first cinema's,
// Asia/Shanghai); choosing a Shanghai hall moves it back. With SEATFLOW_SCREENSHOTS set
// it saves chain-show-new-london, and chain-admin-shows-day of the day's list grouped by
// cinema.
func TestCinemaChainBrowser_NewShowFormSwapsTheHallsZone(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t) // now: 12:00 in London, 20:00 in Shanghai
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if _, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{Name: "sf_session", Value: f.admin, URL: a.base}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/admin/shows/new"), chromedp.WaitVisible(css(`#show-form`))); err != nil {
		t.Fatal(err)
	}
	value := func(t *testing.T, sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+sel+`').value`))
		if err != nil {
			t.Fatalf("value of %s: %v", sel, err)
		}
		return v
	}
	if got := value(t, "#opens_time"); got != "20:00" {
		t.Fatalf("the form opens the sale at %s, want 20:00 (the first cinema's now)", got)
	}
	for _, tc := range []struct{ name, hall, hint, currency, opens string }{
		{"london", f.lnHall, f.londonN + "'s time zone, Europe/London", "Prices (GBP)", "12:00"},
		{"shanghai", f.shHall, f.shanghaiN + "'s time zone, Asia/Shanghai", "Prices (CNY)", "20:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.querySelector('#hall_id'); s.value = '`+tc.hall+`';
				s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`)); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.querySelector('#zone-prices legend').textContent.includes('`+tc.currency+`')`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
				t.Fatalf("the prices are not in %s: %v", tc.currency, err)
			}
			hint, err := chromedp.Run(ctx, chromedp.Text(css(`#show-zone`)))
			if err != nil || !strings.Contains(hint, tc.hint) {
				t.Errorf("the hint says %q, want %q (%v)", hint, tc.hint, err)
			}
			if got := value(t, "#opens_time"); got != tc.opens || value(t, "#opens_date") != "2027-03-26" {
				t.Errorf("the sale opens %s %s, want 2027-03-26 %s", value(t, "#opens_date"), got, tc.opens)
			}
			if tc.name == "london" {
				checkAxe(t, ctx, "new show form of a London hall")
				screenshot(t, ctx, "chain-show-new-london")
			}
		})
	}
	t.Run("the console's day of both cinemas", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/admin/shows?date=2027-03-28"), chromedp.WaitVisible(css(`.cinema-row`))); err != nil {
			t.Fatal(err)
		}
		checkAxe(t, ctx, "the console's day of both cinemas")
		screenshot(t, ctx, "chain-admin-shows-day")
	})
}
