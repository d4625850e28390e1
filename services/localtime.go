package services

import (
	"regexp"
	"time"
)

var (
	LocalDateRe  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	localClockRe = regexp.MustCompile(`^\d{2}:\d{2}$`)
)

// LocalTime turns a local date (YYYY-MM-DD) and clock time (HH:MM, 24-hour) in the
// cinema's zone loc into the instant it names, in UTC (invariant 7: entered local,
// stored UTC). A local time that does not exist because the clocks go forward (a
// spring-forward gap) or that happens twice because they go back (a fall-back
// overlap) is refused, never guessed: "2027-03-28 02:30 does not exist in
// Europe/Berlin: clocks go forward from 02:00 to 03:00".
// Errors: INVALID_REQUEST (malformed or impossible date or time, gap, overlap).
func LocalTime(date, clock string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	if !LocalDateRe.MatchString(date) {
		return time.Time{}, Errorf(CodeInvalidRequest, "the date %q must be YYYY-MM-DD", date)
	}
	day, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return time.Time{}, Errorf(CodeInvalidRequest, "%s is not a date", date)
	}
	if !localClockRe.MatchString(clock) {
		return time.Time{}, Errorf(CodeInvalidRequest, "the time %q must be HH:MM (24-hour)", clock)
	}
	hm, err := time.Parse("15:04", clock)
	if err != nil {
		return time.Time{}, Errorf(CodeInvalidRequest, "%s is not a time of day (00:00 to 23:59)", clock)
	}
	// the wall clock read as if it were UTC; each offset the zone uses around that day
	// gives one candidate instant, valid when loc shows that wall clock at it
	wall := time.Date(day.Year(), day.Month(), day.Day(), hm.Hour(), hm.Minute(), 0, 0, time.UTC)
	var found []time.Time
	for _, probe := range []time.Time{wall.Add(-14 * time.Hour), wall.Add(14 * time.Hour)} {
		_, off := probe.In(loc).Zone()
		at := wall.Add(-time.Duration(off) * time.Second)
		if sameWall(at.In(loc), wall) && (len(found) == 0 || !found[0].Equal(at)) {
			found = append(found, at)
		}
	}
	label := date + " " + clock
	switch len(found) {
	case 1:
		return found[0].UTC(), nil
	case 0:
		from, to := transition(wall.Add(-14*time.Hour), wall.Add(14*time.Hour), loc)
		return time.Time{}, Errorf(CodeInvalidRequest, "%s does not exist in %s: clocks go forward from %s to %s; choose another time",
			label, loc.String(), from, to)
	}
	from, to := transition(wall.Add(-14*time.Hour), wall.Add(14*time.Hour), loc)
	return time.Time{}, Errorf(CodeInvalidRequest, "%s happens twice in %s: clocks go back from %s to %s; choose another time",
		label, loc.String(), from, to)
}

// sameWall reports whether t (in its zone) shows the wall clock of wall (read in UTC).
func sameWall(t, wall time.Time) bool {
	y, m, d := t.Date()
	wy, wm, wd := wall.Date()
	return y == wy && m == wm && d == wd && t.Hour() == wall.Hour() && t.Minute() == wall.Minute()
}

// transition finds the offset change of loc between the instants lo and hi (there is
// one) to the second, and returns the wall clock just before it and right after it
// ("02:00" and "03:00" for a spring-forward gap in Europe/Berlin).
func transition(lo, hi time.Time, loc *time.Location) (string, string) {
	_, offLo := lo.In(loc).Zone()
	for hi.Sub(lo) > time.Second {
		mid := lo.Add(hi.Sub(lo) / 2)
		if _, off := mid.In(loc).Zone(); off == offLo {
			lo = mid
		} else {
			hi = mid
		}
	}
	// hi is the first second of the new offset; the old offset's wall clock at that
	// instant is where the clocks jump from
	_, offHi := hi.In(loc).Zone()
	before := hi.UTC().Add(time.Duration(offLo) * time.Second)
	after := hi.UTC().Add(time.Duration(offHi) * time.Second)
	return before.Format("15:04"), after.Format("15:04")
}

// Rezone returns the local date (YYYY-MM-DD) and clock time (HH:MM) in zone to of the
// instant that date and clock name in zone from: "2027-03-26 20:00" in Asia/Shanghai
// is "2027-03-26 12:00" in Europe/London. A form filled in one cinema's zone keeps its
// moment when its hall moves it to another's. Errors: those of LocalTime.
func Rezone(date, clock string, from, to *time.Location) (string, string, error) {
	at, err := LocalTime(date, clock, from)
	if err != nil {
		return "", "", err
	}
	if to == nil {
		to = time.UTC
	}
	l := at.In(to)
	return l.Format(time.DateOnly), l.Format("15:04"), nil
}
