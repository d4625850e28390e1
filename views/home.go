package views

import (
	"sort"
	"strings"
	"time"

	"seatflow/services"
)

// ShowDay is one local day of the programme.
type ShowDay struct {
	Heading string // in English (DayHeading); pages use Lang.DayHeading(Day, Today)
	Date    string // YYYY-MM-DD in the cinema's zone
	Shows   []*services.Show
	// Day is the day's midnight and Today today's, both in the cinema's zone.
	Day, Today time.Time
}

// GroupByDay puts shows into the local days starting at today's midnight in loc, for
// days days (empty days included), by start time as given: each show on the day it
// starts on in its cinema's zone (ShowLoc; loc for a show read without it).
func GroupByDay(shows []*services.Show, now time.Time, loc *time.Location, days int) []ShowDay {
	if loc == nil {
		loc = time.UTC
	}
	local := now.In(loc)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	out := make([]ShowDay, days)
	index := map[string]int{}
	for i := range out {
		day := today.AddDate(0, 0, i)
		out[i] = ShowDay{Heading: DayHeading(day, today), Date: day.Format(time.DateOnly), Day: day, Today: today}
		index[out[i].Date] = i
	}
	for _, s := range shows { // each on its local day in its own cinema's zone
		if i, ok := index[s.StartsAt.In(ShowLoc(s, loc)).Format(time.DateOnly)]; ok {
			out[i].Shows = append(out[i].Shows, s)
		}
	}
	return out
}

// HomeProps are the props of the programme page.
type HomeProps struct {
	Page
	Days []ShowDay
	Now  time.Time
	Zone *time.Location
	// AllDays are the programme's days for the date strip (Days holds only the chosen
	// day when Date is set).
	AllDays []ShowDay
	Date    string // the chosen day (YYYY-MM-DD, cinema time), "" for all days
	Movies  []services.Movie
	MovieID int64 // the chosen movie, 0 for all
	// States are the sale states of shows with no free seat, from their seat maps (held
	// or sold out); other shows' states come from StateOf.
	States map[int64]ShowState
	// Cinemas are the install's cinemas when it has more than one (the picker shows
	// and every show names its cinema); nil for a single cinema.
	Cinemas  []services.Cinema
	CinemaID int64  // the chosen cinema, 0 for all
	Path     string // the page's path, where the cinema picker's form goes
}

// CinemaLabel is the cinema a show card names: its cinema's name when every cinema of
// a chain is listed, "" otherwise.
func (p HomeProps) CinemaLabel(s *services.Show) string {
	if p.Cinemas == nil || p.CinemaID != 0 {
		return ""
	}
	return s.CinemaName
}

// ByCinema reports whether the programme lists every cinema of a chain: its days then
// group their shows by cinema (services.ByCinema).
func (p HomeProps) ByCinema() bool { return p.Cinemas != nil && p.CinemaID == 0 }

// StateOfShow is the sale state of s on the programme: States when it has one, else
// StateOf.
func (p HomeProps) StateOfShow(l Lang, s *services.Show) ShowState {
	if st, ok := p.States[s.ID]; ok {
		return st
	}
	return l.StateOf(s, p.Now, ShowLoc(s, p.Zone))
}

// BrowseURL is the programme filtered to a day ("" all) and a movie (0 all).
func BrowseURL(date string, movieID int64) string {
	var q []string
	if date != "" {
		q = append(q, "date="+date)
	}
	if movieID > 0 {
		q = append(q, "movie="+i64(movieID))
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + strings.Join(q, "&")
}

// StripLabel is a day's short name in the date strip: "Today", "Tomorrow", "Wed 2".
func StripLabel(d ShowDay, i int) string {
	switch i {
	case 0:
		return "Today"
	case 1:
		return "Tomorrow"
	}
	if t, err := time.Parse(time.DateOnly, d.Date); err == nil {
		return t.Format("Mon 2")
	}
	return d.Date
}

// StripDate is a day's date for the strip: "1 Dec".
func StripDate(d ShowDay) string {
	if t, err := time.Parse(time.DateOnly, d.Date); err == nil {
		return t.Format("2 Jan")
	}
	return ""
}

// MoviesOf lists the distinct movies of the shows, by title.
func MoviesOf(shows []*services.Show) []services.Movie {
	seen := map[int64]bool{}
	var out []services.Movie
	for _, s := range shows {
		if !seen[s.Movie.ID] {
			seen[s.Movie.ID] = true
			out = append(out, s.Movie)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Title < out[j].Title })
	return out
}
