package services

import (
	"cmp"
	"slices"
	"time"
)

// CinemaShows is one cinema's part of a list of shows: the cinema's id, name and zone,
// and its shows.
type CinemaShows struct {
	CinemaID   int64
	CinemaName string
	Loc        *time.Location
	Shows      []*Show
}

// ByCinema groups shows by their cinema for a list of more than one cinema: cinemas in
// the order of their ids (the first cinema first), each cinema's shows by start, so
// that each group's local times read in order (UTC order across zones does not: 10:00
// in London comes after 19:00 in Shanghai the same day). Shows of one cinema make one
// group; no shows, none.
func ByCinema(shows []*Show) []CinemaShows {
	var out []CinemaShows
	for _, s := range shows {
		i := slices.IndexFunc(out, func(g CinemaShows) bool { return g.CinemaID == s.CinemaID })
		if i < 0 {
			out = append(out, CinemaShows{CinemaID: s.CinemaID, CinemaName: s.CinemaName, Loc: s.Loc()})
			i = len(out) - 1
		}
		out[i].Shows = append(out[i].Shows, s)
	}
	slices.SortStableFunc(out, func(a, b CinemaShows) int { return cmp.Compare(a.CinemaID, b.CinemaID) })
	for _, g := range out {
		slices.SortStableFunc(g.Shows, func(a, b *Show) int { return a.StartsAt.Compare(b.StartsAt) })
	}
	return out
}
