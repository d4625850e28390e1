package services

import (
	"fmt"
	"testing"
	"time"
)

// TestByCinema: a list of two cinemas' shows sorted by UTC start is grouped first cinema
// first, each cinema's shows by start; one cinema is one group, no shows none.
func TestByCinema(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	show := func(id, cinema int64, starts string) *Show {
		return &Show{ID: id, StartsAt: at(starts), CinemaID: cinema, CinemaName: fmt.Sprint("cinema ", cinema)}
	}
	// on 27 March 2027: 19:00 in Shanghai (11:00Z), 10:00 (10:00Z) and 21:00 (21:00Z) in London
	shLate, lnMorning, lnEvening := show(1, 1, "2027-03-27T11:00:00Z"), show(2, 2, "2027-03-27T10:00:00Z"), show(3, 2, "2027-03-27T21:00:00Z")
	shEarly := show(4, 1, "2027-03-27T01:00:00Z")
	describe := func(gs []CinemaShows) string {
		out := ""
		for _, g := range gs {
			out += g.CinemaName + ":"
			for _, s := range g.Shows {
				out += fmt.Sprint(" ", s.ID)
			}
			out += "; "
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		shows []*Show
		want  string
	}{
		{"two cinemas in UTC order", []*Show{shEarly, lnMorning, shLate, lnEvening}, "cinema 1: 4 1; cinema 2: 2 3; "},
		{"the first cinema first whichever comes first", []*Show{lnMorning, shLate, lnEvening}, "cinema 1: 1; cinema 2: 2 3; "},
		{"shows out of order are put in order", []*Show{lnEvening, shLate, lnMorning}, "cinema 1: 1; cinema 2: 2 3; "},
		{"one cinema", []*Show{lnMorning, lnEvening}, "cinema 2: 2 3; "},
		{"no shows", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := describe(ByCinema(tc.shows)); got != tc.want {
				t.Errorf("ByCinema = %q, want %q", got, tc.want)
			}
		})
	}
}
