package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// boxOfficeWidths are the counter's screens: a desktop, a tablet held upright and a phone.
var boxOfficeWidths = []axeWidth{{"1280", 1280, 900, false}, {"768", 768, 1024, true}, {"375", 375, 667, true}}

// TestBoxOffice_BrowserSaleAndCashUp drives the counter as staff: open a shift with a
// float, see a seat ticked at the counter that an online buyer takes greyed and unticked
// at once (the map follows the show's seat changes), tick two seats, price them, type the cash given and
// see the change due, take the payment, see the sale with its printed tickets' link,
// then count the drawer 5.00 short and close the shift: the cash-up shows the
// difference, and the notes typed at the opening and at the closing. Each screen passes axe at desktop and tablet width (screenshots under
// SEATFLOW_SCREENSHOTS).
func TestBoxOffice_BrowserSaleAndCashUp(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(3)
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := a.signIn(ctx, "staff", "/admin/shifts", `#shift-float`); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#shift-float`), "200.00"),
		chromedp.SendKeys(css(`#shift-note`), "till 3"),
		chromedp.Submit(css(`#shift-float`)),
		chromedp.WaitVisible(css(`#counted`)),
	); err != nil {
		t.Fatalf("open a shift: %v", err)
	}
	cashUp, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	// a seat ticked at the counter that an online buyer takes first is greyed and
	// unticked, and the counter is told, without a reload
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin/shows/"+show+"/box-office"),
		chromedp.WaitVisible(css(`[data-bo-live-url][data-live="open"]`)),
		chromedp.Click(css(`input[name="seat"][value="`+seats[2]+`"]`)),
	); err != nil {
		t.Fatalf("the counter's live map: %v", err)
	}
	a.orderSeats(a.newUser(), show, seats[2:3])
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`(() => { const i = document.querySelector('input[name="seat"][value="`+seats[2]+`"]');
		return i.disabled && !i.checked && i.closest('.bo-seat').classList.contains('bo-taken'); })()`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("the seat taken online is still open at the counter: %v", err)
	}
	if _, note := browserAt(t, ctx, `[data-bo-live-note]`); !strings.Contains(note, "unticked") {
		t.Errorf("the counter is told %q", note)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`input[name="seat"][value="`+seats[0]+`"]`)),
		chromedp.Click(css(`input[name="seat"][value="`+seats[1]+`"]`)),
		chromedp.Click(css(`button[value="quote"]`)),
		chromedp.WaitVisible(css(`.bo-quote`)),
		chromedp.SendKeys(css(`#bo-given`), "500"),
		chromedp.WaitVisible(css(`#bo-change`)),
	); err != nil {
		t.Fatalf("price two seats: %v", err)
	}
	if _, change := browserAt(t, ctx, `#bo-change`); !strings.HasPrefix(change, "Change due: ") {
		t.Fatalf("change due reads %q", change)
	}
	for _, w := range boxOfficeWidths {
		if err := setViewport(ctx, w); err != nil {
			t.Fatal(err)
		}
		checkAxe(t, ctx, "counter screen at "+w.name)
		if wide, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); err != nil || int64(wide) > w.width+1 {
			t.Errorf("the counter screen at %s px is %d px wide (%v): the seat map should scroll inside it", w.name, wide, err)
		}
		screenshot(t, ctx, "box-office-quote-"+w.name)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`button[value="sell"]`)),
		chromedp.WaitVisible(css(`.bo-done`)),
	); err != nil {
		t.Fatalf("take the payment: %v", err)
	}
	if _, done := browserAt(t, ctx, `.bo-done`); !strings.Contains(done, "Change due") || !strings.Contains(done, "Print tickets") {
		t.Fatalf("the sale reads %q", done)
	}
	for _, w := range boxOfficeWidths {
		if err := setViewport(ctx, w); err != nil {
			t.Fatal(err)
		}
		checkAxe(t, ctx, "finished sale at "+w.name)
		screenshot(t, ctx, "box-office-sold-"+w.name)
	}
	_, total := browserAt(t, ctx, `.bo-done .total`)
	var totalMinor int
	for _, r := range total {
		if r >= '0' && r <= '9' {
			totalMinor = totalMinor*10 + int(r-'0')
		}
	}
	counted := 20000 + totalMinor - 500
	if err := chromedp.Do(ctx,
		chromedp.Navigate(cashUp),
		chromedp.WaitVisible(css(`#counted`)),
		chromedp.SendKeys(css(`#counted`), fmt.Sprintf("%d.%02d", counted/100, counted%100)),
		chromedp.SendKeys(css(`#close-note`), "short a fiver"),
		chromedp.Submit(css(`#counted`)),
		chromedp.WaitVisible(css(`.cash-short`)),
	); err != nil {
		t.Fatalf("close the shift: %v", err)
	}
	if _, diff := browserAt(t, ctx, `.cash-short`); diff != "¥5.00 short" {
		t.Errorf("difference reads %q", diff)
	}
	if _, open := browserAt(t, ctx, `.shift-note`); !strings.Contains(open, "till 3") {
		t.Errorf("the opening note reads %q", open)
	}
	if _, closing := browserAt(t, ctx, `.shift-close-note`); !strings.Contains(closing, "short a fiver") {
		t.Errorf("the closing note reads %q", closing)
	}
	for _, w := range boxOfficeWidths {
		if err := setViewport(ctx, w); err != nil {
			t.Fatal(err)
		}
		checkAxe(t, ctx, "cash-up at "+w.name)
		screenshot(t, ctx, "cash-up-"+w.name)
	}
}
