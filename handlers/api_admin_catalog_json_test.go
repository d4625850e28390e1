package handlers

import (
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
)

const goodShow = `{"movie_id":"3","hall_id":"2","starts_at":"2030-01-01T19:30:00+08:00","sale_opens_at":"2029-12-01T10:00:00Z",
	"sale_closes_at":"2030-01-01T10:30:00Z","prices":[{"zone":"standard","price_minor":4500},{"zone":"premium","price_minor":0}]}`

// TestParseNewShow: malformed create-show bodies are INVALID_REQUEST; a good one parses
// to UTC times, ids and prices, with no purchase limit (the service's default).
func TestParseNewShow(t *testing.T) {
	bad := map[string]string{
		"not an object":        `[]`,
		"two values":           goodShow + ` {}`,
		"unknown field":        `{"movie_id":"3","colour":"red"}`,
		"missing movie":        `{"hall_id":"2","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[]}`,
		"movie id not digits":  `{"movie_id":"x3","hall_id":"2","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[]}`,
		"zero hall id":         `{"movie_id":"3","hall_id":"0","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[]}`,
		"time without offset":  `{"movie_id":"3","hall_id":"2","starts_at":"2030-01-01T19:30:00","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[]}`,
		"time as a number":     `{"movie_id":"3","hall_id":"2","starts_at":1893497400,"sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[]}`,
		"missing sale close":   `{"movie_id":"3","hall_id":"2","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","prices":[]}`,
		"missing prices":       `{"movie_id":"3","hall_id":"2","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z"}`,
		"negative price":       `{"movie_id":"3","hall_id":"2","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[{"zone":"standard","price_minor":-1}]}`,
		"fractional price":     `{"movie_id":"3","hall_id":"2","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[{"zone":"standard","price_minor":45.5}]}`,
		"price as a string":    `{"movie_id":"3","hall_id":"2","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[{"zone":"standard","price_minor":"4500"}]}`,
		"price without a zone": `{"movie_id":"3","hall_id":"2","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[{"price_minor":4500}]}`,
		"limit 0":              `{"movie_id":"3","hall_id":"2","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[],"purchase_limit":0}`,
		"limit 101":            `{"movie_id":"3","hall_id":"2","starts_at":"2030-01-01T19:30:00Z","sale_opens_at":"2029-12-01T10:00:00Z","sale_closes_at":"2030-01-01T10:30:00Z","prices":[],"purchase_limit":101}`,
	}
	for name, b := range bad {
		if _, err := parseNewShow([]byte(b)); services.ErrorCode(err) != services.CodeInvalidRequest {
			t.Errorf("%s: %v, want INVALID_REQUEST", name, err)
		}
	}
	in, err := parseNewShow([]byte(goodShow))
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2030, 1, 1, 11, 30, 0, 0, time.UTC)
	if in.MovieID != 3 || in.HallID != 2 || !in.StartsAt.Equal(want) || in.StartsAt.Location() != time.UTC ||
		len(in.Prices) != 2 || in.Prices[1] != (catalog.ZonePrice{Zone: "premium", PriceMinor: 0}) || in.PurchaseLimit != 0 {
		t.Errorf("parsed %+v", in)
	}
}

// TestParseShowChange: a PATCH body sets only what it names; ids and the start cannot
// change.
func TestParseShowChange(t *testing.T) {
	for _, b := range []string{`{"starts_at":"2030-01-01T19:30:00Z"}`, `{"hall_id":"2"}`, `{"purchase_limit":"4"}`,
		`{"sale_opens_at":"soon"}`, `{"prices":{"standard":1}}`, `{"title":"x"}`, `nope`} {
		if _, err := parseShowChange([]byte(b)); services.ErrorCode(err) != services.CodeInvalidRequest {
			t.Errorf("%s: %v, want INVALID_REQUEST", b, err)
		}
	}
	ch, err := parseShowChange([]byte(`{"sale_closes_at":"2030-01-01T18:30:00+08:00","purchase_limit":6,"sale_opens_at":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if ch.SaleOpensAt != nil || ch.SaleClosesAt == nil || !ch.SaleClosesAt.Equal(time.Date(2030, 1, 1, 10, 30, 0, 0, time.UTC)) ||
		ch.PurchaseLimit == nil || *ch.PurchaseLimit != 6 || ch.Prices != nil {
		t.Errorf("parsed %+v", ch)
	}
}

// TestParseMovieBody: a title string and a runtime of 1..600 whole minutes.
func TestParseMovieBody(t *testing.T) {
	for _, b := range []string{`{}`, `{"title":"Dune"}`, `{"title":7,"runtime_min":100}`, `{"title":"Dune","runtime_min":0}`,
		`{"title":"Dune","runtime_min":601}`, `{"title":"Dune","runtime_min":"155"}`, `{"title":"Dune","runtime_min":155.5}`} {
		if _, _, err := parseMovieBody([]byte(b)); services.ErrorCode(err) != services.CodeInvalidRequest {
			t.Errorf("%s: %v, want INVALID_REQUEST", b, err)
		}
	}
	if title, n, err := parseMovieBody([]byte(`{"title":"Dune","runtime_min":155}`)); err != nil || title != "Dune" || n != 155 {
		t.Errorf("parsed %q %d %v", title, n, err)
	}
}
