package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestLive_SecondBrowserSeesAHold: a buyer looks at a show's seat map with two seats
// ticked; another buyer books one of them. Without a reload, the first buyer's map
// shows it held and unticked, says so in the live region, and the zone's seats-left
// count drops; a release brings it back as free. (The 15 s waits only bound a hang: a
// busy run is slow; the load test measures how fast a change reaches a map.)
func TestLive_SecondBrowserSeesAHold(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	seat := func(id string) string { return `input[name="seat"][value="` + id + `"]` }
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(css(seat(seats[0]))),
		chromedp.Click(css(seat(seats[0]))),
		chromedp.Click(css(seat(seats[1]))),
	); err != nil {
		t.Fatalf("open the show and tick two seats: %v", err)
	}
	lbl0, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+seat(seats[0])+`').dataset.label`))
	lbl1, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+seat(seats[1])+`').dataset.label`))
	// the count of the zone of the seat taken (the show's first zone may be another)
	zoneLeft := `[data-zone-left]`
	for _, s := range a.seatMap(show) {
		if s.ID == seats[0] {
			zoneLeft = `[data-zone-left="` + s.Zone + `"]`
		}
	}
	leftBefore, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+zoneLeft+`').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	// the stream is open once its snapshot arrived
	if err := chromedp.Do(ctx, chromedp.WaitVisible(css(`[data-live-url][data-live="open"]`))); err != nil {
		t.Fatalf("the live stream did not open: %v", err)
	}
	other := a.newUser()
	start := time.Now()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", other, map[string]any{"seat_ids": seats[:1]}, nil)
	if r.status != 201 {
		t.Fatalf("the other buyer's order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.WaitVisible(css(`label.seat-held `+seat(seats[0])+`:disabled:not(:checked)`))); err != nil {
		t.Fatalf("the hold did not reach the open map (%v): %v", time.Since(start), err)
	}
	t.Logf("the hold reached the open map %v after it was asked for", time.Since(start).Round(time.Millisecond))
	screenshot(t, ctx, "live-held")
	said := ""
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end) && !strings.Contains(said, "just taken"); time.Sleep(50 * time.Millisecond) {
		said, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-seat-live]').textContent`))
	}
	if !strings.Contains(said, "just taken") {
		t.Errorf("the live region says %q", said)
	}
	summary, _ := chromedp.Run(ctx, chromedp.Text(css(`#selection-summary table`)))
	if strings.Contains(summary, lbl0) || !strings.Contains(summary, lbl1) {
		t.Errorf("the selection summary did not follow: %.200q", summary)
	}
	still, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('`+seat(seats[1])+`').checked`))
	if !still {
		t.Error("the other ticked seat was unticked")
	}
	leftAfter, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+zoneLeft+`').textContent`))
	if leftAfter == leftBefore {
		t.Errorf("seats left still %q after the hold", leftAfter)
	}
	if r := a.do("POST", "/api/v1/orders/"+no+"/cancel", other, nil, nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	wctx2, cancel2 := context.WithTimeout(ctx, 15*time.Second)
	defer cancel2()
	// the seat's state, not its visibility (the "just taken" outline is still on it)
	if _, err := chromedp.Run(wctx2, chromedp.Poll[bool](`(() => { const i = document.querySelector('label.seat-free `+seat(seats[0])+`'); return !!i && !i.disabled; })()`)); err != nil {
		t.Fatalf("the release did not reach the open map: %v (the seat map API says %q; on the page: %s)", err, a.seatState(show, seats[0]),
			evalJS[string](t, ctx, `(() => { const i = document.querySelector('`+seat(seats[0])+`'); return 'label ' + i.closest('label').className + ', disabled ' + i.disabled + ', stream ' + document.querySelector('[data-live-url]').dataset.live; })()`))
	}
}
