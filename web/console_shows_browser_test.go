package web

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAdminShows_Browser drives the console in chromium as staff: add a movie, schedule
// a show for tomorrow with a price per zone (the hall's price fields swapped in by
// htmx), see it scheduled, open the sale now and see it on sale, list the day, then
// cancel it through the confirmation step and read the summary.
func TestAdminShows_Browser(t *testing.T) {
	a := newTestApp(t, nil)
	p := a.pickCatalog(a.demoToken("staff"))
	acc := a.accounts["staff"]
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	tomorrow := a.localDate(1)

	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin/movies"),
		chromedp.WaitVisible(css(`#email`)),
		chromedp.SendKeys(css(`#email`), acc.Email),
		chromedp.SendKeys(css(`#password`), acc.Password),
		chromedp.Submit(css(`#password`)),
		chromedp.WaitVisible(css(`form[action="/admin/movies"]`)),
	); err != nil {
		t.Fatalf("sign in to the movies: %v", err)
	}
	screenshot(t, ctx, "admin-movies")
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#title`), "Browser Premiere"),
		chromedp.SendKeys(css(`#runtime_min`), "95"),
		chromedp.Submit(css(`#title`)),
		chromedp.WaitVisible(css(`form[action$="/retire"]`)),
	); err != nil {
		t.Fatalf("add a movie: %v", err)
	}
	loc, main := browserAt(t, ctx, `main`)
	screenshot(t, ctx, "admin-movie")
	m := regexp.MustCompile(`/admin/movies/([0-9]+)$`).FindStringSubmatch(loc)
	if m == nil || !strings.Contains(main, "Browser Premiere") || !strings.Contains(main, "1 h 35 min") {
		t.Fatalf("movie page %s:\n%s", loc, main)
	}
	movie := m[1]

	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin/shows/new"),
		chromedp.WaitVisible(css(`#show-form`)),
		chromedp.SetValue(css(`#movie_id`), movie),
	); err != nil {
		t.Fatalf("open the new-show form: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.querySelector('#hall_id'); s.value = '`+p.hall+`';
			s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`)); err != nil {
		t.Fatalf("choose the hall: %v", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(css(`#price_`+p.zones[0])),
		chromedp.SetValue(css(`#date`), tomorrow),
		chromedp.SetValue(css(`#start`), "08:00"),
		chromedp.SetValue(css(`#opens_date`), tomorrow),
		chromedp.SetValue(css(`#opens_time`), "06:00"),
	); err != nil {
		t.Fatalf("fill the new-show form: %v", err)
	}
	for i, z := range p.zones {
		if err := chromedp.Do(ctx, chromedp.SendKeys(css(`#price_`+z), []string{"45", "60.50", "30", "80"}[i%4])); err != nil {
			t.Fatalf("price of %s: %v", z, err)
		}
	}
	screenshot(t, ctx, "admin-show-new")
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`#show-form button.button-primary`)),
		chromedp.WaitVisible(css(`#show-status`)),
	); err != nil {
		t.Fatalf("create the show: %v", err)
	}
	loc, main = browserAt(t, ctx, `main`)
	screenshot(t, ctx, "admin-show-scheduled")
	if !regexp.MustCompile(`/admin/shows/[0-9]+$`).MatchString(loc) || !strings.Contains(main, "scheduled") || !strings.Contains(main, "08:00 – 09:50") ||
		!strings.Contains(main, "4 seats per buyer") {
		t.Fatalf("show page %s:\n%s", loc, main)
	}
	showPath := loc[len(a.base):]

	if err := chromedp.Do(ctx,
		chromedp.Click(css(`form[action$="/open-sale"] button`)),
		chromedp.WaitVisible(css(`form[action$="/open-sale"] button[disabled]`)),
	); err != nil {
		t.Fatalf("open sale now: %v", err)
	}
	_, status := browserAt(t, ctx, `#show-status`)
	screenshot(t, ctx, "admin-show-on-sale")
	if status != "on sale" {
		t.Errorf("after Open sale now the status reads %q", status)
	}
	if got := a.do("GET", "/api/v1"+strings.TrimPrefix(showPath, "/admin"), "", nil, nil).json(t)["status"]; got != "on_sale" {
		t.Errorf("the API reads %v after Open sale now", got)
	}

	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin/shows?date="+tomorrow),
		chromedp.WaitVisible(css(`table.data-table`)),
	); err != nil {
		t.Fatalf("the day's shows: %v", err)
	}
	_, list := browserAt(t, ctx, `table.data-table tbody`)
	screenshot(t, ctx, "admin-shows-day")
	if !strings.Contains(list, "Browser Premiere") || !strings.Contains(list, "08:00–09:50") || !strings.Contains(list, "on sale") {
		t.Errorf("the day's list:\n%s", list)
	}

	// every day for 2 days from tomorrow at 08:00: tomorrow clashes with the show above
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin/shows/new?date="+tomorrow),
		chromedp.WaitVisible(css(`#show-form`)),
		chromedp.SetValue(css(`#movie_id`), movie),
	); err != nil {
		t.Fatalf("open the form again: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.querySelector('#hall_id'); s.value = '`+p.hall+`';
			s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`)); err != nil {
		t.Fatalf("choose the hall: %v", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(css(`#price_`+p.zones[0])),
		chromedp.SetValue(css(`#start`), "08:00"),
		chromedp.SetValue(css(`#opens_time`), "06:00"),
		chromedp.SetValue(css(`#opens_date`), tomorrow),
		chromedp.SetValue(css(`#days`), "2"),
	); err != nil {
		t.Fatalf("fill a repeat: %v", err)
	}
	for _, z := range p.zones {
		if err := chromedp.Do(ctx, chromedp.SetValue(css(`#price_`+z), "40")); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`#show-form button.button-primary`)),
		chromedp.WaitVisible(css(`.repeat-report`)),
	); err != nil {
		t.Fatalf("submit a repeat: %v", err)
	}
	_, report := browserAt(t, ctx, `.repeat-report`)
	screenshot(t, ctx, "admin-show-repeat-report")
	if !strings.Contains(report, "1 of 2 days created") || !strings.Contains(report, "Overlaps show") {
		t.Errorf("repeat report:\n%s", report)
	}

	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+showPath),
		chromedp.WaitVisible(css(`a[href$="/cancel"]`)),
		chromedp.Click(css(`a[href$="/cancel"]`)),
		chromedp.WaitVisible(css(`#confirm`)),
		chromedp.SendKeys(css(`#reason`), "Projector repair"),
	); err != nil {
		t.Fatalf("open the cancel step: %v", err)
	}
	screenshot(t, ctx, "admin-show-cancel-confirm")
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`#confirm`)),
		chromedp.Click(css(`form[action$="/cancel"] button`)),
		chromedp.WaitVisible(css(`#cancel-summary`)),
	); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	_, summary := browserAt(t, ctx, `#cancel-summary`)
	_, status = browserAt(t, ctx, `#show-status`)
	screenshot(t, ctx, "admin-show-cancelled")
	if summary != "Show cancelled: 0 pending orders cancelled, 0 paid orders refunded." || status != "cancelled" {
		t.Errorf("after cancelling: %q, status %q", summary, status)
	}
}
