package web

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestAdminShows_WaitingRoomBrowser: staff open a show in the console, turn its
// waiting room on at two buyers a minute with the keyboard, and watch the figures
// follow the buyers who queue (the panel refreshes itself every few seconds).
func TestAdminShows_WaitingRoomBrowser(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.queueShows(1, true)[0]
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := a.signIn(ctx, "staff", "/admin/shows/"+show, `#waiting-room-form`); err != nil {
		t.Fatal(err)
	}
	if state := queueText(t, ctx, `#room-state`); state != "off" {
		t.Fatalf("room before: %q", state)
	}
	if err := chromedp.Do(ctx,
		chromedp.Focus(css(`#waiting_room`)),
		chromedp.KeyEvent(" "), // Space ticks the box
		chromedp.SetValue(css(`#admit_per_minute`), ""),
		chromedp.SendKeys(css(`#admit_per_minute`), "2"),
		chromedp.KeyEvent(kb.Enter), // Enter submits the form
		chromedp.WaitVisible(css(`#room-state.badge-on-sale`)),
	); err != nil {
		t.Fatalf("turn the room on: %v", err)
	}
	if pace := queueText(t, ctx, `#room-pace`); pace != "2 buyers a minute" {
		t.Errorf("pace %q", queueText(t, ctx, `#room-pace`))
	}
	a.joinQueue(show) // walks in on the room's first credit
	a.joinQueue(show)
	a.joinQueue(show)
	var waiting string
	for end := time.Now().Add(12 * time.Second); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		waiting = queueText(t, ctx, `#room-waiting`)
		if strings.TrimSpace(waiting) == "2" {
			break
		}
	}
	if strings.TrimSpace(waiting) != "2" {
		t.Errorf("the panel shows %q waiting, want 2 (without a reload)", waiting)
	}
	screenshot(t, ctx, "console-waiting-room")
}
