package views

import (
	"time"

	"seatflow/services"
)

// ShowCleaningTime is the time a hall is cleaned after a show's runtime, before its next
// show may start (the catalog package's CleaningTime).
const ShowCleaningTime = 15 * time.Minute

// MaxAdmitPerMinute is the fastest pace staff may give a waiting room, in buyers a
// minute; DefaultAdmitPerMinute is the pace of a room created without one (the catalog
// package's values).
const (
	MaxAdmitPerMinute     = 100_000
	DefaultAdmitPerMinute = 600
)

// MovieSummary is a movie for the console: the movie, when it was retired (nil while it
// is not) and how many of its shows are still to come.
type MovieSummary struct {
	services.Movie
	RetiredAt     *time.Time
	UpcomingShows int
}

// Retired reports whether the movie is retired.
func (m *MovieSummary) Retired() bool { return m.RetiredAt != nil }

// HallSummary is a hall as the new-show form offers it: its grid, its sellable seats
// and its zones.
type HallSummary struct {
	ID       int64
	CinemaID int64
	Name     string
	Rows     int
	Cols     int
	Seats    int
	Zones    []services.Zone
}

// SeatCounts are a show's seats by state: sold (paid), held and free.
type SeatCounts struct {
	Sold, Held, Free int
}

// DayResult is one day of a repeated show: the local Date, the show created, or Err
// saying why that day was not.
type DayResult struct {
	Date string
	Show *services.Show
	Err  error
}

// CreatedDays counts the days of results whose show was created.
func CreatedDays(results []DayResult) int {
	n := 0
	for _, r := range results {
		if r.Err == nil {
			n++
		}
	}
	return n
}

// HallLayout is a parsed hall layout for its preview: its grid, its seats in hall order
// (row, then column), the zones it uses with their sellable seats, and the sellable
// (Total) and blocked seats.
type HallLayout struct {
	Rows, Cols int
	Seats      []LayoutSeat
	Zones      []ZoneCount
	Total      int
	Blocked    int
}

// LayoutSeat is one seat of a layout: its place on the grid (1-based), its row label,
// number and label, its kind (services.Kind*) and its zone's code and name.
type LayoutSeat struct {
	Row, Col int
	RowLabel string
	Number   int
	Label    string
	Kind     string
	Zone     string
	ZoneName string
}

// LayoutCell is one character of the layout syntax: what it means for people and the
// name of its zone.
type LayoutCell struct {
	Char     byte
	Name     string
	ZoneName string
}
