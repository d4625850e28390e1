package web

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// signedInBrowser is a headless browser signed in with token (the session cookie set
// directly, as after a sign-in).
func signedInBrowser(t *testing.T, a *testApp, token string) context.Context {
	t.Helper()
	ctx := newBrowser(t)
	httpOnly := true
	if _, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{Name: "sf_session", Value: token,
		URL: a.base + "/", Path: "/", HTTPOnly: &httpOnly}); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// TestBrowser_TwoBuyersRaceForTheSameSeats: two buyers in two browsers tick the same
// two seats and press Book at the same moment. Exactly one gets the order; the other
// lands back on the show's page (not a POST-only address) told which seats were just
// taken (or, when the live map unticked them first, asked to pick again), and those
// seats are no longer offered.
func TestBrowser_TwoBuyersRaceForTheSameSeats(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	var browsers []context.Context
	for i := 0; i < 2; i++ {
		ctx := signedInBrowser(t, a, a.newUser())
		if err := chromedp.Do(ctx,
			chromedp.Navigate(a.base+"/shows/"+show),
			chromedp.WaitVisible(css(`input[name="seat"][value="`+seats[0]+`"]`)),
			chromedp.Click(css(`input[name="seat"][value="`+seats[0]+`"]`)),
			chromedp.Click(css(`input[name="seat"][value="`+seats[1]+`"]`)),
		); err != nil {
			t.Fatalf("browser %d: %v", i, err)
		}
		browsers = append(browsers, ctx)
	}
	var wg sync.WaitGroup
	urls := make([]string, 2)
	start := make(chan struct{})
	for i, ctx := range browsers {
		wg.Add(1)
		go func(i int, ctx context.Context) {
			defer wg.Done()
			<-start
			_ = chromedp.Do(ctx,
				chromedp.Submit(css(`input[name="seat"]`)),
				chromedp.Sleep(500*time.Millisecond),
				chromedp.WaitReady(css(`main`)))
			urls[i], _ = chromedp.Run(ctx, chromedp.Location())
		}(i, ctx)
	}
	close(start)
	wg.Wait()
	var won, lost int
	for i, u := range urls {
		switch {
		case strings.Contains(u, "/orders/"):
			won++
		case strings.HasSuffix(u, "/shows/"+show) || strings.Contains(u, "/shows/"+show+"?"):
			lost++
			// read by script, not by node id: the live map may still be redrawing the page
			msg, err := chromedp.Run(browsers[i], chromedp.Poll[string](`(() => { const m = document.querySelector('main'); return m && document.readyState === 'complete' ? m.innerText : ''; })()`))
			if err != nil {
				t.Fatal(err)
			}
			// told by the server that the seats were just taken, or (when the live map
			// unticked them before the click) asked to pick other seats
			if !strings.Contains(msg, "just taken") && !strings.Contains(msg, "Pick at least one seat") {
				t.Errorf("the losing buyer is not told what happened: %.300q", msg)
			}
			taken, _ := chromedp.Run(browsers[i], chromedp.Evaluate[bool](`document.querySelector('input[name="seat"][value="`+seats[0]+`"]').disabled`))
			if !taken {
				t.Error("the lost seat is still offered to the losing buyer")
			}
			screenshot(t, browsers[i], "race-lost")
		default:
			t.Errorf("browser %d ended at %s", i, u)
		}
	}
	if won != 1 || lost != 1 {
		t.Fatalf("%d won, %d lost (%v), want exactly one of each", won, lost, urls)
	}
	var live int
	a.DB.Get(&live, "SELECT COUNT(*) FROM order_seats WHERE live = 1 AND show_id = ? AND seat_id IN (?, ?)", show, seats[0], seats[1])
	if live != 2 {
		t.Errorf("%d live order seats for the two seats, want 2 (one order)", live)
	}
}
