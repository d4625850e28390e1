package views

import (
	"strings"
	"time"

	"seatflow/services"
)

// ShowLoc is the time zone s's local dates and times are shown in: its cinema's, or
// fallback when s is nil or was read without its cinema (fallback nil: UTC).
func ShowLoc(s *services.Show, fallback *time.Location) *time.Location {
	if s != nil && s.TimeZone != "" {
		return s.Loc()
	}
	if fallback == nil {
		return time.UTC
	}
	return fallback
}

// TimesNote tells a console list whose times are in which zone: "Times are
// Europe/London." when every show's cinema has one zone (fallback's name for an empty
// list), else "Times are each show's cinema's: Asia/Shanghai, Europe/London."
func TimesNote(shows []*services.Show, fallback *time.Location) string {
	var zones []string
	seen := map[string]bool{}
	for _, s := range shows {
		if z := ShowLoc(s, fallback).String(); !seen[z] {
			seen[z] = true
			zones = append(zones, z)
		}
	}
	switch len(zones) {
	case 0:
		return "Times are " + ShowLoc(nil, fallback).String() + "."
	case 1:
		return "Times are " + zones[0] + "."
	}
	return "Times are each show's cinema's: " + strings.Join(zones, ", ") + "."
}

// ManyCinemas reports whether shows belong to more than one cinema (a chain's day
// list then names each show's cinema beside its hall).
func ManyCinemas(shows []*services.Show) bool {
	for _, s := range shows {
		if s.CinemaID != shows[0].CinemaID {
			return true
		}
	}
	return false
}
