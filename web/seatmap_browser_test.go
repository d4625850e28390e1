package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// seatSizeJS is the width of the first seat on the map, in CSS px.
const seatSizeJS = `document.querySelector('.hall-grid > .seats > .seat').getBoundingClientRect().width`

// TestBrowserSeatMap_PhoneZoomAndStickyRows opens the largest demo hall on a 375 x 812
// phone, in English and in Chinese: seats are at least 24 px, the map scrolls inside its
// box with the row letters of a seat at the far right still on screen and the screen's
// label in view, the zoom buttons make seats bigger and back (never below 24 px), and
// the Book button stays on screen while the map is.
func TestBrowserSeatMap_PhoneZoomAndStickyRows(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.showInHall("Hall 3")
	ctx := newBrowser(t)
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile, chromedp.EmulateTouch)); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "zh-Hans"} {
		accept := "en"
		if lang != "en" {
			accept = "zh-CN,zh;q=0.9"
		}
		if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
			Headers: network.Headers{"Accept-Language": accept}}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx,
			chromedp.Navigate(a.base+"/shows/"+show),
			chromedp.WaitVisible(chromedp.CSS(`[data-map-zoom]`)),
		); err != nil {
			t.Fatal(err)
		}
		if got := evalJS[string](t, ctx, `document.documentElement.lang`); got != lang {
			t.Fatalf("page language %q, want %q", got, lang)
		}
		size := evalJS[float64](t, ctx, seatSizeJS)
		t.Logf("%s: seat %.1f px at 375 px", lang, size)
		if size < 24 {
			t.Errorf("%s: seats are %.1f px on a 375-px phone, want at least 24", lang, size)
		}
		if w := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); w > 375 {
			t.Errorf("%s: the page is %d px wide on a 375-px screen", lang, w)
		}
		// tick two seats of the middle block, then bring the map into view
		evalJS[bool](t, ctx, `(() => { const s = [...document.querySelectorAll('.seats input[name="seat"]:enabled')].filter(x => x.dataset.kind === "standard"); s[40].click(); s[41].click(); document.querySelector('.seatmap-scroll').scrollIntoView(); return true; })()`)
		if n := evalJS[int](t, ctx, `document.querySelectorAll('.seats input:checked').length`); n != 2 {
			t.Fatalf("%s: %d seats ticked, want 2", lang, n)
		}
		if bar := evalJS[string](t, ctx, `document.querySelector('[data-bar-summary]').textContent`); !strings.Contains(bar, "2") {
			t.Errorf("%s: the bottom bar says %q", lang, bar)
		}
		if b := evalJS[float64](t, ctx, `document.querySelector('.seat-form .form-actions button[type=submit]').getBoundingClientRect().bottom`); b > 812 {
			t.Errorf("%s: the Book button is below the screen (bottom %.0f) while the map is in view", lang, b)
		}
		viewportShot(t, ctx, "seatmap-phone-375-"+lang+"-ticked")
		// scroll the map to its right end: the row letters of the last seat stay on screen
		evalJS[bool](t, ctx, `(() => { const s = document.querySelector('.seatmap-scroll'); s.scrollLeft = s.scrollWidth; return true; })()`)
		time.Sleep(100 * time.Millisecond)
		if sl := evalJS[float64](t, ctx, `document.querySelector('.seatmap-scroll').scrollLeft`); sl < 50 {
			t.Errorf("%s: the map did not scroll sideways (scrollLeft %.0f)", lang, sl)
		}
		seen := evalJS[string](t, ctx, `(() => {
			const seats = [...document.querySelectorAll('.hall-grid > .seats > .seat')];
			const last = seats[seats.length - 1], row = getComputedStyle(last).gridRowStart;
			const box = document.querySelector('.seatmap-scroll').getBoundingClientRect();
			const out = [];
			for (const side of ['start', 'end']) {
				const l = [...document.querySelectorAll('.row-labels-' + side + ' .row-label')].find(x => getComputedStyle(x).gridRowStart === row);
				const r = l.getBoundingClientRect();
				if (r.left < Math.max(0, box.left) - 0.5 || r.right > Math.min(375, box.right) + 0.5 || r.width === 0) out.push(side + ' ' + l.textContent + ' at ' + r.left + '-' + r.right);
			}
			const sc = document.querySelector('.screen span').getBoundingClientRect();
			if (sc.left < 0 || sc.right > 375) out.push('screen label at ' + sc.left + '-' + sc.right);
			return out.join('; ');
		})()`)
		if seen != "" {
			t.Errorf("%s: after scrolling sideways, out of view: %s", lang, seen)
		}
		// zoom in twice, then out to the smallest size
		click := func(what string) {
			t.Helper()
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-zoom="`+what+`"]`))); err != nil {
				t.Fatal(err)
			}
		}
		click("in")
		click("in")
		big := evalJS[float64](t, ctx, seatSizeJS)
		t.Logf("%s: zoomed in: seat %.1f px", lang, big)
		if big < size*1.4 {
			t.Errorf("%s: + twice made seats %.1f px (from %.1f)", lang, big, size)
		}
		viewportShot(t, ctx, "seatmap-phone-375-"+lang+"-zoomed-in")
		click("out")
		click("out")
		small := evalJS[float64](t, ctx, seatSizeJS)
		if small >= big || small < 24 {
			t.Errorf("%s: − twice made seats %.1f px (from %.1f)", lang, small, big)
		}
		if !evalJS[bool](t, ctx, `document.querySelector('[data-zoom="out"]').disabled`) {
			t.Errorf("%s: − still enabled at the smallest seat (%.1f px)", lang, small)
		}
		viewportShot(t, ctx, "seatmap-phone-375-"+lang+"-zoomed-out")
	}
}

// TestBrowserSeatMap_EnterTicksAndTakenNotice: Enter on a focused seat ticks it (and
// again unticks it) without sending the form; when another buyer takes a ticked seat,
// a visible notice names it, and its close button hides it.
func TestBrowserSeatMap_EnterTicksAndTakenNotice(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	seat := func(id string) string { return `input[name="seat"][value="` + id + `"]` }
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`#selection-summary`)),
	); err != nil {
		t.Fatal(err)
	}
	if help := evalJS[string](t, ctx, `document.getElementById('map-help').textContent`); !strings.Contains(help, "Enter") {
		t.Errorf("keyboard help %q does not mention Enter", help)
	}
	url := evalJS[string](t, ctx, `location.href`)
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(seat(seats[0]))), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if now := evalJS[string](t, ctx, `location.href`); now != url {
		t.Fatalf("Enter on a seat went to %s", now)
	}
	if !evalJS[bool](t, ctx, `document.querySelector('`+seat(seats[0])+`').checked`) {
		t.Fatal("Enter did not tick the focused seat")
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	if evalJS[bool](t, ctx, `document.querySelector('`+seat(seats[0])+`').checked`) {
		t.Fatal("a second Enter did not untick the seat")
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter), chromedp.Click(chromedp.CSS(seat(seats[1])))); err != nil {
		t.Fatal(err)
	}
	viewportShot(t, ctx, "seatmap-desktop-en-ticked")
	label := evalJS[string](t, ctx, `document.querySelector('`+seat(seats[0])+`').dataset.label`)
	time.Sleep(300 * time.Millisecond) // the live stream is open
	if r := a.do("POST", "/api/v1/shows/"+show+"/orders", a.newUser(), map[string]any{"seat_ids": seats[:1]}, nil); r.status != 201 {
		t.Fatalf("the other buyer's order: %d %s", r.status, r.body)
	}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`[data-taken-notice]`))); err != nil {
		t.Fatalf("no visible notice after a ticked seat was taken: %v", err)
	}
	said := evalJS[string](t, ctx, `document.querySelector('[data-taken-text]').textContent`)
	if want := "Seat " + label + " was just taken by someone else — pick another."; said != want {
		t.Errorf("notice %q, want %q", said, want)
	}
	if top := evalJS[float64](t, ctx, `document.querySelector('[data-taken-notice]').getBoundingClientRect().top`); top < 0 || top > 1000 {
		t.Errorf("the notice is off screen (top %.0f)", top)
	}
	viewportShot(t, ctx, "seatmap-desktop-en-taken-notice")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-taken-close]`)), chromedp.WaitNotVisible(chromedp.CSS(`[data-taken-notice]`))); err != nil {
		t.Fatalf("the close button did not hide the notice: %v", err)
	}
	if !evalJS[bool](t, ctx, `document.querySelector('`+seat(seats[1])+`').checked`) {
		t.Error("the other ticked seat was unticked")
	}
}

// TestBrowserSeatMap_StaffMapAligned opens the staff seat map of a hall with an aisle,
// blocked seats, wheelchair spaces, a held and a house seat, at 1280 px, at 200 % (640
// CSS px at scale 2) and on a 375-px phone: each row letter's vertical centre lies
// within its row's seats, and no seat's number overflows its box.
func TestBrowserSeatMap_StaffMapAligned(t *testing.T) {
	a := newTestApp(t, nil)
	show := a.showInHall("Hall 2")
	free := a.freeSeats(show, 30)
	if r := a.do("POST", "/api/v1/shows/"+show+"/orders", a.newUser(), map[string]any{"seat_ids": free[:2]}, nil); r.status != 201 {
		t.Fatalf("hold: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/admin/shows/"+show+"/house-seats", a.demoToken("staff"), map[string]any{"seat_ids": free[25:27]}, nil); r.status >= 300 {
		t.Fatalf("house seats: %d %s", r.status, r.body)
	}
	ctx := newBrowser(t)
	page := "/admin/shows/" + show + "/seats"
	if err := a.signIn(ctx, "staff", page, `.hall-grid`); err != nil {
		t.Fatal(err)
	}
	check := `(() => {
		const bad = [];
		const rows = {};
		document.querySelectorAll('.hall-grid > .seats > *').forEach(s => {
			const r = s.getBoundingClientRect(), k = getComputedStyle(s).gridRowStart;
			rows[k] = rows[k] || { top: Infinity, bottom: -Infinity };
			rows[k].top = Math.min(rows[k].top, r.top);
			rows[k].bottom = Math.max(rows[k].bottom, r.bottom);
			const box = s.querySelector('.seat-box') || s;
			if (box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight) bad.push('number ' + s.title + ' overflows ' + box.scrollWidth + '>' + box.clientWidth);
		});
		document.querySelectorAll('.row-labels .row-label').forEach(l => {
			const k = getComputedStyle(l).gridRowStart, r = l.getBoundingClientRect(), mid = (r.top + r.bottom) / 2;
			if (!rows[k] || mid < rows[k].top || mid > rows[k].bottom) bad.push('row ' + l.textContent + ' centre ' + mid.toFixed(1) + ' outside ' + (rows[k] ? rows[k].top.toFixed(1) + '-' + rows[k].bottom.toFixed(1) : 'no seats'));
		});
		return [Object.keys(rows).length + ' rows', ...bad].join('; ');
	})()`
	for _, v := range []struct {
		name  string
		w, h  int64
		scale float64
		phone bool
	}{{"desktop", 1280, 1000, 1, false}, {"zoom200", 640, 500, 2, false}, {"phone-375", 375, 812, 1, true}} {
		opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(v.scale)}
		if v.phone {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(v.w, v.h, opts...), chromedp.Navigate(a.base+page), chromedp.WaitVisible(chromedp.CSS(`.hall-grid`))); err != nil {
			t.Fatal(err)
		}
		got := evalJS[string](t, ctx, check)
		t.Logf("%s: %s", v.name, got)
		if !strings.HasPrefix(got, "12 rows") || strings.Contains(got, ";") {
			t.Errorf("%s: %s", v.name, got)
		}
		if v.phone {
			if size := evalJS[float64](t, ctx, seatSizeJS); size < 24 {
				t.Errorf("phone: staff seats are %.1f px", size)
			}
		}
		evalJS[bool](t, ctx, `(() => { document.querySelector('.seatmap-scroll').scrollIntoView(); return true; })()`)
		viewportShot(t, ctx, "staffmap-"+v.name)
	}
}
