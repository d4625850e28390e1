package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestCinemaChainBrowser_PickerAndEachCinemasShowPage drives a chain's buyer pages in
// the browser: the programme of every cinema with the picker, choosing London with the
// picker's form (no script needed) and coming back to it remembered, and a show page of
// each cinema at its local time; axe-core checks each page. With SEATFLOW_SCREENSHOTS
// set it saves chain-home-all, chain-home-london, chain-show-shanghai and
// chain-show-london.
func TestCinemaChainBrowser_PickerAndEachCinemasShowPage(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t)
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	text := func(t *testing.T, sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	t.Run("every cinema", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/?cinema=all&date=2027-03-28"),
			chromedp.WaitVisible(css(`#cinema-picker`))); err != nil {
			t.Fatal(err)
		}
		main := text(t, "main")
		for _, w := range []string{f.shanghaiN, f.londonN, "00:30", "19:30"} {
			if !strings.Contains(main, w) {
				t.Errorf("the programme of every cinema lacks %q", w)
			}
		}
		checkAxe(t, ctx, "home of every cinema")
		screenshot(t, ctx, "chain-home-all")
	})
	t.Run("London chosen with the picker and remembered", func(t *testing.T) {
		// London's show is on the page of every cinema too: the form's answer is there when
		// the Shanghai show is gone
		if err := chromedp.Do(ctx, chromedp.SetValue(css(`#cinema-picker`), f.london),
			chromedp.Click(css(`form.cinema-picker button[type=submit]`)),
			chromedp.WaitNotPresent(css(`a[href="/shows/`+f.shows["sh-28-0030"]+`"]`)),
			chromedp.WaitVisible(css(`a[href="/shows/`+f.shows["ln-28-1930"]+`"]`)),
			chromedp.Navigate(a.base+"/?date=2027-03-28"),
			chromedp.WaitVisible(css(`a[href="/shows/`+f.shows["ln-28-1930"]+`"]`))); err != nil {
			t.Fatal(err)
		}
		shanghai, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('a[href="/shows/`+f.shows["sh-28-0030"]+`"]').length`))
		if err != nil {
			t.Fatal(err)
		}
		if shanghai != 0 {
			t.Error("London's programme lists a Shanghai show")
		}
		checkAxe(t, ctx, "home of London")
		screenshot(t, ctx, "chain-home-london")
	})
	for _, tc := range []struct{ name, show, want string }{
		{"shanghai", "sh-28-0030", "Sun 28 Mar, 00:30"},
		{"london", "ln-28-1930", "Sun 28 Mar, 19:30"},
	} {
		t.Run("show page of "+tc.name, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.Navigate(a.base+"/shows/"+f.shows[tc.show]),
				chromedp.WaitVisible(css(`.hall-grid input[type=checkbox]`))); err != nil {
				t.Fatal(err)
			}
			if main := text(t, "main"); !strings.Contains(main, tc.want) {
				t.Errorf("the show page does not tell %q", tc.want)
			}
			checkAxe(t, ctx, "show page of "+tc.name)
			viewportShot(t, ctx, "chain-show-"+tc.name) // the full-page capture leaves the seat map's scroller blank
		})
	}
}
