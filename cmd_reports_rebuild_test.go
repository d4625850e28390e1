package main

import (
	"testing"
	"time"
)

// TestRebuildFlags: reports-rebuild takes a range of local dates and an optional cinema;
// a missing or malformed date, a reversed range or a negative cinema is refused.
func TestRebuildFlags(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		ok     bool
		cinema int64
	}{
		{"range", []string{"--from", "2026-01-01", "--to", "2026-12-31"}, true, 0},
		{"one cinema", []string{"--from", "2026-03-01", "--to", "2026-03-01", "--cinema", "2"}, true, 2},
		{"no to", []string{"--from", "2026-01-01"}, false, 0},
		{"bad date", []string{"--from", "2026-1-1", "--to", "2026-01-02"}, false, 0},
		{"reversed", []string{"--from", "2026-02-01", "--to", "2026-01-01"}, false, 0},
		{"negative cinema", []string{"--from", "2026-01-01", "--to", "2026-01-01", "--cinema", "-1"}, false, 0},
		{"extra argument", []string{"--from", "2026-01-01", "--to", "2026-01-01", "x"}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := rebuildFlags(tc.args)
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok=%v", err, tc.ok)
			}
			if tc.ok && (o.CinemaID != tc.cinema || o.To.Before(o.From) || o.From.Location() != time.UTC) {
				t.Errorf("got %+v", o)
			}
		})
	}
}
