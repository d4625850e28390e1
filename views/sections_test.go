package views_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/demo"
	"seatflow/views"
)

// hallOf is a layout as a stored hall with seat ids 1, 2, ... in layout order.
func hallOf(t *testing.T, text string) *services.Hall {
	t.Helper()
	l, err := catalog.ParseLayout(text, catalog.NumberLeftToRight)
	if err != nil {
		t.Fatal(err)
	}
	h := l.Hall("Test")
	for i := range h.Seats {
		h.Seats[i].ID = int64(i + 1)
	}
	h.Index()
	return h
}

// TestHallSections: sections follow the aisles, and a block wider or longer than a
// section may be is cut into near-equal parts; every seat is in exactly one section.
func TestHallSections(t *testing.T) {
	cases := []struct {
		name          string
		text          string
		bands, blocks int
		first         views.Section // its Top, Bottom, Left, Right
	}{
		{"stadium", demo.StadiumLayout(demo.StadiumOptions{}), 12, 12, views.Section{Top: 1, Bottom: 25, Left: 1, Right: 25}},
		{"big hall", demo.StadiumLayout(demo.StadiumOptions{Rows: 60, Cols: 80}), 3, 4, views.Section{Top: 1, Bottom: 25, Left: 1, Right: 25}},
		{"no aisles", strings.Repeat(strings.Repeat("S", 100)+"\n", 70), 3, 4, views.Section{Top: 1, Bottom: 23, Left: 1, Right: 25}},
		{"small", "SS.SS\nSS.SS", 1, 2, views.Section{Top: 1, Bottom: 2, Left: 1, Right: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := hallOf(t, c.text)
			hs := views.HallSections(h)
			if hs.Bands != c.bands || hs.Blocks != c.blocks || len(hs.List) != c.bands*c.blocks {
				t.Fatalf("%d x %d sections (%d), want %d x %d", hs.Bands, hs.Blocks, len(hs.List), c.bands, c.blocks)
			}
			f := hs.List[0]
			if f.Top != c.first.Top || f.Bottom != c.first.Bottom || f.Left != c.first.Left || f.Right != c.first.Right {
				t.Errorf("first section %d-%d x %d-%d, want %d-%d x %d-%d", f.Top, f.Bottom, f.Left, f.Right,
					c.first.Top, c.first.Bottom, c.first.Left, c.first.Right)
			}
			seen := map[int]int{}
			for _, sec := range hs.List {
				if sec.Bottom-sec.Top >= 25 || sec.Right-sec.Left >= 30 {
					t.Errorf("section %d is %d x %d", sec.Index, sec.Bottom-sec.Top+1, sec.Right-sec.Left+1)
				}
				for _, i := range sec.Seats {
					s := h.Seats[i]
					if s.Row < sec.Top || s.Row > sec.Bottom || s.Col < sec.Left || s.Col > sec.Right {
						t.Fatalf("seat %s is outside section %d", s.Label, sec.Index)
					}
					seen[i]++
				}
				if got, ok := hs.Find(sec.Index); !ok || got.Index != sec.Index {
					t.Errorf("Find(%d) = %v", sec.Index, ok)
				}
			}
			if len(seen) != len(h.Seats) {
				t.Errorf("%d of %d seats in a section", len(seen), len(h.Seats))
			}
			for i, n := range seen {
				if n != 1 {
					t.Errorf("seat %s in %d sections", h.Seats[i].Label, n)
				}
			}
			last := h.Seats[len(h.Seats)-1]
			if got := hs.Of(h, last.ID); got != len(hs.List) {
				t.Errorf("the last seat %s is in section %d, want %d", last.Label, got, len(hs.List))
			}
		})
	}
}

// stadiumProps is the show page of a stadium with every third seat sold, for user 7.
func stadiumProps(t *testing.T, section int, selected ...int64) views.ShowPageProps {
	t.Helper()
	h := hallOf(t, demo.StadiumLayout(demo.StadiumOptions{}))
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	show := &services.Show{ID: 9, HallID: 1, Status: services.ShowOnSale, PurchaseLimit: 6, Currency: "CNY",
		StartsAt: now.Add(48 * time.Hour), SaleOpensAt: now.Add(-time.Hour), SaleClosesAt: now.Add(47 * time.Hour),
		Movie: services.Movie{Title: "Final"}, HallName: "Stadium", SeatsLeft: 1,
		Zones: []services.Zone{{Code: "vip", Name: "VIP", PriceMinor: 48000}, {Code: "premium", Name: "Premium", PriceMinor: 18000}, {Code: "standard", Name: "Standard", PriceMinor: 8000}}}
	m := &views.ShowSeatMap{Show: show, Hall: h, States: map[int64]string{}, Owners: map[int64]int64{}}
	for _, s := range h.Seats {
		m.States[s.ID] = services.StateFree
		if s.ID%3 == 0 {
			m.States[s.ID], m.Owners[s.ID] = services.StateSold, 99
		}
	}
	sel := map[int64]bool{}
	for _, id := range selected {
		sel[id] = true
	}
	return views.ShowPageProps{Page: views.Page{Title: "Final", User: &services.User{ID: 7}, Path: "/shows/9"},
		Map: m, Now: now, Zone: time.UTC, HoldFor: 15 * time.Minute, Selected: sel, Section: section}
}

func render(t *testing.T, p views.ShowPageProps) (*goquery.Document, int) {
	t.Helper()
	var buf bytes.Buffer
	if err := views.ShowPage(p).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	size := buf.Len()
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc, size
}

// TestShowPage_Stadium: the page of a stadium show is an overview of 144 sections
// (tens of KB, no seat checkbox), or one section's 625 seats; seats ticked elsewhere
// ride along hidden and are in the summary.
func TestShowPage_Stadium(t *testing.T) {
	doc, size := render(t, stadiumProps(t, 0))
	if n := doc.Find(`input[name="seat"]`).Length(); n != 0 {
		t.Errorf("the overview has %d seat checkboxes", n)
	}
	if n := doc.Find(`a.section-tile`).Length(); n != 144 {
		t.Errorf("%d tiles, want 144", n)
	}
	if size > 150<<10 {
		t.Errorf("the overview is %d KB", size>>10)
	}
	first := doc.Find(`a.section-tile`).First()
	if label, _ := first.Attr("aria-label"); label != "Rows A–Y, seats 1–25: 417 of 625 seats free (Standard)" {
		t.Errorf("first tile %q", label)
	}
	if doc.Find(`script[src="/static/js/sections.js"]`).Length() != 1 {
		t.Error("no sections.js on a sectioned page")
	}

	// section 14: band 2, block 2; seat 1 (A1, section 1) ticked
	doc, size = render(t, stadiumProps(t, 14, 1))
	if n := doc.Find(`.seats:not(.seats-elsewhere) input[name="seat"]`).Length(); n != 625 {
		t.Errorf("section 14 has %d checkboxes", n)
	}
	if size > 600<<10 {
		t.Errorf("a section's page is %d KB", size>>10)
	}
	if got := doc.Find(`.section-where h3`).Text(); got != "Rows Z–AX, seats 26–50" {
		t.Errorf("title %q", got)
	}
	if s, _ := doc.Find(`.seats label`).First().Attr("style"); s != "grid-row:1;grid-column:1;" {
		t.Errorf("the section's first seat is placed at %q", s)
	}
	carried := doc.Find(`.seats-elsewhere input[value="1"]`)
	if _, checked := carried.Attr("checked"); !checked {
		t.Error("A1 (ticked in section 1) is not carried")
	}
	if got := strings.TrimSpace(doc.Find(`#selection-summary tbody td`).First().Text()); got != "A1" {
		t.Errorf("summary starts with %q, want A1", got)
	}
	for dir, want := range map[string]int{"front": 2, "left": 13, "right": 15, "back": 26} {
		href, _ := doc.Find(`.section-step-` + dir).Attr("href")
		if href != "/shows/9?section="+strconv.Itoa(want)+"&seat=1" {
			t.Errorf("%s links to %q", dir, href)
		}
	}

	// a section number past the last shows the overview
	doc, _ = render(t, stadiumProps(t, 145))
	if doc.Find(`.section-grid`).Length() != 1 {
		t.Error("section 145 does not show the overview")
	}
}
