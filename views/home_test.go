package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"seatflow/services"
	"seatflow/views"
)

// homeDoc renders the programme in l at now with a show that started an hour before
// now and one starting in two hours, both with seats left.
func homeDoc(t *testing.T, l views.Lang, now time.Time) *goquery.Document {
	t.Helper()
	show := func(id int64, starts time.Time) *services.Show {
		return &services.Show{ID: id, Status: services.ShowOnSale, StartsAt: starts, SaleOpensAt: starts.Add(-48 * time.Hour),
			SaleClosesAt: starts.Add(-10 * time.Minute), PurchaseLimit: 4, Currency: "CNY", SeatsLeft: 80,
			Movie: services.Movie{ID: id, Title: "Movie " + string(rune('A'+id))}, HallName: "Hall 1",
			Zones: []services.Zone{{Code: "standard", Name: "Standard", PriceMinor: 5000, SeatsLeft: 80}}}
	}
	shows := []*services.Show{show(1, now.Add(-time.Hour)), show(2, now.Add(2*time.Hour))}
	days := views.GroupByDay(shows, now, time.UTC, 7)
	p := views.HomeProps{Page: views.Page{Path: "/", Lang: l}, Days: days, AllDays: days, Now: now, Zone: time.UTC}
	var buf bytes.Buffer
	if err := views.HomePage(p).Render(views.WithLang(context.Background(), l), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// accessibleName is a link's accessible name as a browser computes it for these
// links: its aria-label, else its text.
func accessibleName(s *goquery.Selection) string {
	if v, ok := s.Attr("aria-label"); ok {
		return v
	}
	return s.Text()
}

// visibleText is the text a sighted user reads on a link (visually hidden parts left
// out).
func visibleText(s *goquery.Selection) string {
	c := s.Clone()
	c.Find(".visually-hidden").Remove()
	return strings.TrimSpace(c.Text())
}

// TestHomePage_StartedShowOffersNoChooseSeats: the programme offers "Choose seats" on
// a show still to come, never on one that has started.
func TestHomePage_StartedShowOffersNoChooseSeats(t *testing.T) {
	now := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	doc := homeDoc(t, views.En, now)
	started := doc.Find(`.show-action a[href="/shows/1"]`)
	if started.Length() != 1 || strings.Contains(started.Text(), "Choose seats") {
		t.Errorf("the started show's action reads %q", started.Text())
	}
	if s := doc.Find(`.show-card`).First().Text(); strings.Contains(s, "seats left") {
		t.Errorf("the started show's card counts seats left: %q", s)
	}
	if next := doc.Find(`.show-action a[href="/shows/2"]`); !strings.Contains(next.Text(), "Choose seats") {
		t.Errorf("the show to come's action reads %q", next.Text())
	}
}

// TestHomePage_NamesContainTheVisibleText: every link of the date strip and every
// show's button has an accessible name that starts with the words it shows (axe-core's
// label-content-name-mismatch; voice control says those words), in both languages.
func TestHomePage_NamesContainTheVisibleText(t *testing.T) {
	now := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	for _, l := range views.Langs {
		doc := homeDoc(t, l, now)
		links := doc.Find(`.date-strip a, .show-action a`)
		if links.Length() < 9 {
			t.Fatalf("%s: only %d links found", l, links.Length())
		}
		links.Each(func(_ int, a *goquery.Selection) {
			name, seen := strings.Join(strings.Fields(accessibleName(a)), ""), strings.Join(strings.Fields(visibleText(a)), "")
			if !strings.HasPrefix(name, seen) {
				t.Errorf("%s: %s shows %q but is named %q", l, a.AttrOr("href", ""), visibleText(a), accessibleName(a))
			}
		})
	}
}
