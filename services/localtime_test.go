package services

import (
	"strings"
	"testing"
	"time"
)

// TestLocalTime_RefusesGapsAndOverlaps proves the console's local time input: normal
// times convert to the right UTC instant; a time skipped when the clocks go forward and
// a time that happens twice when they go back are refused with a message saying so.
func TestLocalTime_RefusesGapsAndOverlaps(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	ok := []struct {
		name, date, clock string
		loc               *time.Location
		want              string // UTC
	}{
		{"Berlin winter", "2027-01-15", "19:30", berlin, "2027-01-15T18:30:00Z"},
		{"Berlin summer", "2027-07-15", "19:30", berlin, "2027-07-15T17:30:00Z"},
		{"Berlin just before the gap", "2027-03-28", "01:59", berlin, "2027-03-28T00:59:00Z"},
		{"Berlin end of the gap", "2027-03-28", "03:00", berlin, "2027-03-28T01:00:00Z"},
		{"Berlin just after the overlap", "2027-10-31", "03:00", berlin, "2027-10-31T02:00:00Z"},
		{"Berlin just before the overlap", "2027-10-31", "01:59", berlin, "2027-10-30T23:59:00Z"},
		{"New York evening", "2027-03-14", "20:00", newYork, "2027-03-15T00:00:00Z"},
		{"New York midnight", "2027-11-07", "00:00", newYork, "2027-11-07T04:00:00Z"},
		{"Shanghai has no daylight saving", "2027-03-28", "02:30", shanghai, "2027-03-27T18:30:00Z"},
		{"UTC", "2027-03-28", "02:30", time.UTC, "2027-03-28T02:30:00Z"},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			got, err := LocalTime(c.date, c.clock, c.loc)
			if err != nil {
				t.Fatalf("%s %s: %v", c.date, c.clock, err)
			}
			if got.Format(time.RFC3339) != c.want || got.Location() != time.UTC {
				t.Errorf("%s %s in %s = %s, want %s", c.date, c.clock, c.loc, got.Format(time.RFC3339), c.want)
			}
		})
	}
	refused := []struct {
		name, date, clock string
		loc               *time.Location
		want              []string // parts of the message
	}{
		{"Berlin gap", "2027-03-28", "02:30", berlin,
			[]string{"2027-03-28 02:30 does not exist in Europe/Berlin", "clocks go forward from 02:00 to 03:00"}},
		{"Berlin gap start", "2027-03-28", "02:00", berlin, []string{"does not exist"}},
		{"Berlin overlap", "2027-10-31", "02:30", berlin,
			[]string{"2027-10-31 02:30 happens twice in Europe/Berlin", "clocks go back from 03:00 to 02:00"}},
		{"Berlin overlap start", "2027-10-31", "02:00", berlin, []string{"happens twice"}},
		{"New York gap", "2027-03-14", "02:15", newYork,
			[]string{"2027-03-14 02:15 does not exist in America/New_York", "from 02:00 to 03:00"}},
		{"New York overlap", "2027-11-07", "01:30", newYork,
			[]string{"2027-11-07 01:30 happens twice in America/New_York", "from 02:00 to 01:00"}},
		{"bad date", "2027-02-30", "19:00", berlin, []string{"2027-02-30 is not a date"}},
		{"bad date shape", "28.03.2027", "19:00", berlin, []string{"YYYY-MM-DD"}},
		{"bad time", "2027-03-28", "24:00", berlin, []string{"not a time of day"}},
		{"bad time shape", "2027-03-28", "7pm", berlin, []string{"HH:MM"}},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			got, err := LocalTime(c.date, c.clock, c.loc)
			if ErrorCode(err) != CodeInvalidRequest {
				t.Fatalf("%s %s = %v, %v; want INVALID_REQUEST", c.date, c.clock, got, err)
			}
			for _, part := range c.want {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("message %q lacks %q", err.Error(), part)
				}
			}
		})
	}
}

// TestRezone: a local moment keeps its instant in another zone, across a date line and
// London's change to summer time; an unreadable or impossible time is an error.
func TestRezone(t *testing.T) {
	sh, _ := time.LoadLocation("Asia/Shanghai")
	ln, _ := time.LoadLocation("Europe/London")
	for _, tc := range []struct {
		name, date, clock   string
		from, to            *time.Location
		wantDate, wantClock string
		wantErr             bool
	}{
		{"Shanghai evening is London noon (GMT)", "2027-03-26", "20:00", sh, ln, "2027-03-26", "12:00", false},
		{"Shanghai early morning is London's day before", "2027-03-27", "02:00", sh, ln, "2027-03-26", "18:00", false},
		{"after the change to BST seven hours apart", "2027-03-29", "20:00", sh, ln, "2027-03-29", "13:00", false},
		{"London to Shanghai", "2027-03-26", "12:00", ln, sh, "2027-03-26", "20:00", false},
		{"the same zone is the same", "2027-03-26", "09:05", ln, ln, "2027-03-26", "09:05", false},
		{"a London time that does not exist", "2027-03-28", "01:30", ln, sh, "", "", true},
		{"not a time", "2027-03-26", "7pm", sh, ln, "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, c, err := Rezone(tc.date, tc.clock, tc.from, tc.to)
			if (err != nil) != tc.wantErr || d != tc.wantDate || c != tc.wantClock {
				t.Errorf("Rezone(%s %s) = %s %s, %v; want %s %s (error %v)", tc.date, tc.clock, d, c, err, tc.wantDate, tc.wantClock, tc.wantErr)
			}
		})
	}
}
