package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestConsoleCinemasBrowser: the admin's cinemas page of a chain (the first cinema,
// Shanghai and London) at 1280 px and on a 375 px phone: each cinema's card tells its
// id, its zone's UTC offset now, its halls and limited staff, and axe-core finds no
// serious violation; a refused save tells "Time zone" in words. With
// SEATFLOW_SCREENSHOTS set it saves console-cinemas-1280, console-cinemas-375 and
// console-cinemas-refused.
func TestConsoleCinemasBrowser(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t)
	ctx := newBrowser(t)
	if err := a.signIn(ctx, "admin", "/admin/cinemas", `#cinemas-title`); err != nil {
		t.Fatal(err)
	}
	for _, w := range axeWidths {
		t.Run(w.name, func(t *testing.T) {
			if err := setViewport(ctx, w); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/admin/cinemas"), chromedp.WaitVisible(chromedp.CSS(`#cinema-`+f.london))); err != nil {
				t.Fatal(err)
			}
			card, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#cinema-`+f.shanghai)))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{f.shanghaiN, f.shanghai, "UTC+08:00 now", "Halls"} {
				if !strings.Contains(card, want) {
					t.Errorf("Shanghai's card lacks %q: %s", want, card)
				}
			}
			checkAxe(t, ctx, "cinemas at "+w.name+" px")
			screenshot(t, ctx, "console-cinemas-"+w.name)
		})
	}
	t.Run("refused", func(t *testing.T) {
		if err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.CSS(`#c`+f.london+`-time_zone`), "Mars/Olympus"),
			chromedp.Click(chromedp.CSS(`#cinema-`+f.london+` button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`#cinema-`+f.london+` [role=alert]`))); err != nil {
			t.Fatal(err)
		}
		msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#cinema-`+f.london+` [role=alert]`)))
		if err != nil || !strings.HasPrefix(strings.TrimSpace(msg), `Time zone "Mars/Olympus"`) {
			t.Errorf("the refusal says %q (%v)", msg, err)
		}
		checkAxe(t, ctx, "cinemas with a refused save")
		screenshot(t, ctx, "console-cinemas-refused")
	})
}
