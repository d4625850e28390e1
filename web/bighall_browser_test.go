package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"seatflow/services/demo"
)

// TestBrowser_BigHallSections: a hall of 4,466 seats, 70 % taken, in a browser on a
// desktop and on a 375-px phone: the overview of its sections, a section opened from
// it, a seat ticked there that stays ticked on the neighbouring section's page, and the
// booking of it from there.
func TestBrowser_BigHallSections(t *testing.T) {
	a := newTestApp(t, nil)
	b := a.bigHallShow("Arena", demo.StadiumOptions{Rows: 60, Cols: 80}, 0.7)
	browseSections(t, a, b, "bighall", a.pickSection(b))
}

// TestStadium_Browser is TestBrowser_BigHallSections in the 300 x 300 stadium (83,521
// seats, its hall created through the admin API); it takes a while, so it runs only in
// make bench-stadium (SEATFLOW_STADIUM=1) and prints how long its steps take.
func TestStadium_Browser(t *testing.T) {
	if os.Getenv("SEATFLOW_STADIUM") == "" {
		t.Skip("the stadium runs in make bench-stadium (SEATFLOW_STADIUM=1)")
	}
	start := time.Now()
	a := newTestApp(t, nil)
	b := a.bigHallShow("Stadium", demo.StadiumOptions{}, 0.7)
	setup := time.Since(start)
	// the first page loads the map from MySQL; the next ones read it from Redis
	first := time.Now()
	if r := a.getPage("/shows/"+b.show, ""); r.status != 200 {
		t.Fatalf("show page: %d", r.status)
	}
	load := time.Since(first)
	pick := a.pickSection(b)
	overview, section := timePage(t, a, "/shows/"+b.show), timePage(t, a, "/shows/"+b.show+"?section="+strconv.Itoa(pick))
	api := timeGet(t, a.base+"/api/v1/shows/"+b.show+"/seats")
	// Redis time per page view (INFO commandstats usec deltas, every command of the
	// server: the machine's other users of the same Redis count too) and the staff
	// house-seat pages' sizes
	sectionUS := redisTimePerView(t, a, "/shows/"+b.show+"?section="+strconv.Itoa(pick), "")
	overviewUS := redisTimePerView(t, a, "/shows/"+b.show, "")
	staff := a.demoToken("staff")
	staffOverview := a.getPage("/admin/shows/"+b.show+"/seats", staff)
	staffSection := a.getPage("/admin/shows/"+b.show+"/seats?section="+strconv.Itoa(pick), staff)
	if staffOverview.status != 200 || staffSection.status != 200 {
		t.Fatalf("staff seat pages: %d %d", staffOverview.status, staffSection.status)
	}
	fmt.Printf("stadium: section_redis_us_per_view=%d overview_redis_us_per_view=%d (whole map, what a version-keyed copy pays per change) staff_overview_kb=%d staff_section_kb=%d\n",
		sectionUS, overviewUS, len(staffOverview.body)>>10, len(staffSection.body)>>10)
	if len(staffOverview.body) > 1<<20 || len(staffSection.body) > 1<<20 {
		t.Errorf("a staff house-seat page is over 1 MB: %d and %d KB", len(staffOverview.body)>>10, len(staffSection.body)>>10)
	}
	browse := time.Now()
	browseSections(t, a, b, "stadium", pick)
	fmt.Printf("stadium: setup_s=%.1f first_page_ms=%d overview_ms=%d overview_kb=%d section_ms=%d section_kb=%d json_map_ms=%d json_map_kb=%d browser_s=%.1f total_s=%.1f\n",
		setup.Seconds(), load.Milliseconds(), overview.d.Milliseconds(), overview.size>>10, section.d.Milliseconds(), section.size>>10,
		api.d.Milliseconds(), api.size>>10, time.Since(browse).Seconds(), time.Since(start).Seconds())
}

// redisTimePerView is the Redis time (µs, the sum of INFO commandstats usec) that a GET
// of path costs, the median of 15 views.
func redisTimePerView(t *testing.T, a *testApp, path, token string) int64 {
	t.Helper()
	var per []int64
	for i := 0; i < 15; i++ {
		before := redisUsec(t, a)
		if r := a.getPage(path, token); r.status != 200 {
			t.Fatalf("GET %s: %d", path, r.status)
		}
		per = append(per, redisUsec(t, a)-before)
	}
	slices.Sort(per)
	return per[len(per)/2]
}

// redisUsec is the Redis server's time spent in commands so far (µs, INFO commandstats),
// less INFO's own.
func redisUsec(t *testing.T, a *testApp) int64 {
	t.Helper()
	info, err := a.Redis.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, line := range strings.Split(info, "\n") {
		if _, rest, ok := strings.Cut(line, ",usec="); ok && strings.HasPrefix(line, "cmdstat_") && !strings.HasPrefix(line, "cmdstat_info:") {
			n, _ := strconv.ParseInt(strings.SplitN(rest, ",", 2)[0], 10, 64)
			sum += n
		}
	}
	return sum
}

type pageTime struct {
	d    time.Duration
	size int
}

// timePage is the best of five GETs of path, and its size.
func timePage(t *testing.T, a *testApp, path string) pageTime {
	best := pageTime{d: time.Hour}
	for i := 0; i < 5; i++ {
		start := time.Now()
		r := a.getPage(path, "")
		if r.status != 200 {
			t.Fatalf("GET %s: %d", path, r.status)
		}
		if d := time.Since(start); d < best.d {
			best = pageTime{d: d, size: len(r.body)}
		}
	}
	return best
}

// timeGet is the best of five GETs of url (the JSON seat map, gzipped on the wire), and
// its size unzipped.
func timeGet(t *testing.T, url string) pageTime {
	best := pageTime{d: time.Hour}
	for i := 0; i < 5; i++ {
		start := time.Now()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
		}
		if d := time.Since(start); d < best.d {
			best = pageTime{d: d, size: len(body)}
		}
	}
	return best
}

// browseSections drives the sectioned seat map of b's show in a browser, signed in, at
// 1280 and at 375 px: the overview (no checkbox, tiles with free seats, nothing wider
// than the screen), section, a seat ticked there, the section on its right with the seat
// still in the summary, a scroll down the page, and the booking of the seat. Screenshots
// are saved as <name>-<width>-<step>.png.
func browseSections(t *testing.T, a *testApp, b *bigHall, name string, section int) {
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	for _, w := range []struct{ width, height int }{{1280, 1000}, {375, 812}} {
		shot := func(step string) { screenshot(t, ctx, fmt.Sprintf("%s-%d-%s", name, w.width, step)) }
		opts := []chromedp.EmulateViewportOption{}
		if w.width < 500 {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		if err := chromedp.Do(ctx,
			chromedp.EmulateViewport(int64(w.width), int64(w.height), opts...),
			chromedp.Navigate(a.base+"/shows/"+b.show),
			chromedp.WaitVisible(chromedp.CSS(`.section-grid`)),
			chromedp.WaitVisible(chromedp.CSS(`.site-footer`)),
		); err != nil {
			t.Fatalf("%d: the overview: %v", w.width, err)
		}
		if n := evalJS[int](t, ctx, `document.querySelectorAll('input[name="seat"]').length`); n != 0 {
			t.Errorf("%d: the overview has %d seat checkboxes", w.width, n)
		}
		if n := evalJS[int](t, ctx, `document.querySelectorAll('a.section-tile').length`); n < 12 {
			t.Errorf("%d: %d section tiles", w.width, n)
		}
		if sw := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); sw > w.width {
			t.Errorf("%d: the overview page is %d px wide", w.width, sw)
		}
		if small := evalJS[float64](t, ctx, `document.querySelector('a.section-tile').getBoundingClientRect().width`); small < 18 {
			t.Errorf("%d: section tiles are %.0f px wide", w.width, small)
		}
		shot("overview")
		evalJS[bool](t, ctx, `(document.querySelector('.section-heading').scrollIntoView(), true)`)
		viewportShot(t, ctx, fmt.Sprintf("%s-%d-overview-grid", name, w.width))

		tile := `a.section-tile[href="/shows/` + b.show + `?section=` + strconv.Itoa(section) + `"]`
		if err := chromedp.Do(ctx,
			chromedp.ScrollIntoView(chromedp.CSS(tile)),
			chromedp.Click(chromedp.CSS(tile)),
			chromedp.WaitVisible(chromedp.CSS(`.section-page .seats input[name="seat"]`)),
			chromedp.WaitVisible(chromedp.CSS(`.site-footer`)),
		); err != nil {
			t.Fatalf("%d: open section %d: %v", w.width, section, err)
		}
		if n := evalJS[int](t, ctx, `document.querySelectorAll('.seats input[name="seat"]').length`); n == 0 || n > 30*25 {
			t.Errorf("%d: section %d has %d seat checkboxes", w.width, section, n)
		}
		if sw := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); sw > w.width {
			t.Errorf("%d: the section page is %d px wide", w.width, sw)
		}
		if s := evalJS[float64](t, ctx, `document.querySelector('.section-page .seat').getBoundingClientRect().width`); s < 18 {
			t.Errorf("%d: seats are %.0f px wide, too small to tap", w.width, s)
		}
		shot("section")

		// tick the first free seat (a click on its box, as a finger would)
		picked := evalJS[string](t, ctx, `(() => {
			const s = [...document.querySelectorAll('.section-page .seats input[name="seat"]:not([disabled])')]
				.find(x => x.getAttribute('data-kind') === 'standard');
			s.scrollIntoView({block: 'center', inline: 'center'}); s.click(); return s.value; })()`)
		if n := evalJS[int](t, ctx, `document.querySelectorAll('#selection-summary tbody tr').length`); n != 1 {
			t.Fatalf("%d: the summary lists %d seats after one tick", w.width, n)
		}
		time.Sleep(300 * time.Millisecond) // the tick's colour fades in
		viewportShot(t, ctx, fmt.Sprintf("%s-%d-ticked", name, w.width))

		if n := evalJS[int](t, ctx, `document.querySelectorAll('.seats input[name="seat"]:checked').length`); n != 1 {
			t.Errorf("%d: %d seats ticked before leaving the section", w.width, n)
		}
		right := `.section-nav a.section-step-right`
		tctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err := chromedp.Do(tctx,
			chromedp.ScrollIntoView(chromedp.CSS(right)),
			chromedp.Click(chromedp.CSS(right)),
			chromedp.WaitReady(chromedp.CSS(`.section-page input[type="hidden"][name="section"][value="`+strconv.Itoa(section+1)+`"]`)),
			chromedp.WaitVisible(chromedp.CSS(`.site-footer`)), // the whole page is in
		)
		cancel()
		if err != nil {
			shot("right-failed")
			t.Fatalf("%d: the section on the right: %v (at %s)", w.width, err, evalJS[string](t, ctx, `location.href`))
		}
		if n := evalJS[int](t, ctx, `document.querySelectorAll('.seats-elsewhere input[name="seat"][value="`+picked+`"]:checked').length`); n != 1 {
			t.Errorf("%d: the seat ticked in the section before (%s) is not carried (%d) at %s", w.width, picked, n, evalJS[string](t, ctx, `location.href`))
		}
		if n := evalJS[int](t, ctx, `document.querySelectorAll('#selection-summary tbody tr').length`); n != 1 {
			t.Errorf("%d: the summary lists %d seats on the next section's page", w.width, n)
		}
		if stop := evalJS[bool](t, ctx, `!!document.querySelector('.section-page .seats:not(.seats-elsewhere) input[tabindex="0"]')`); !stop {
			t.Errorf("%d: the map's tab stop is not a seat of this section", w.width)
		}
		shot("next")
		evalJS[bool](t, ctx, `(window.scrollTo(0, document.body.scrollHeight), true)`)
		time.Sleep(200 * time.Millisecond)
		viewportShot(t, ctx, fmt.Sprintf("%s-%d-scrolled", name, w.width))

		if w.width < 500 {
			continue // the desktop books the seat; the phone only looks
		}
		tctx, cancel = context.WithTimeout(ctx, 30*time.Second)
		err = chromedp.Do(tctx,
			chromedp.Click(chromedp.CSS(`.seat-form button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`form[action$="/pay"]`)),
		)
		cancel()
		if err != nil {
			t.Fatalf("%d: book the carried seat: %v", w.width, err)
		}
		label := ""
		for l, id := range b.ids {
			if id == picked {
				label = l
			}
		}
		if got := evalJS[string](t, ctx, `document.querySelector('.order-seats tbody').textContent`); label == "" || !strings.Contains(got, label) {
			t.Errorf("the order has %q, want seat %s", got, label)
		}
		shot("booked")
	}
}
