// Package views holds the templ components of the browser UI and the small pure
// helpers they use. Components take props only: no globals, no Fiber, no services calls.
// The props are view models, plain structs the handlers build: views imports the root
// package seatflow/services (the shared vocabulary) and no services subpackage nor jobs
// (imports_test.go keeps it so).
package views

import (
	"strconv"
	"strings"
	"time"

	"seatflow/services"
)

// Money formats an amount in minor units for people (services.Money).
func Money(minor int64, currency string) string { return services.Money(minor, currency) }

func pad2(n uint64) string {
	if n < 10 {
		return "0" + strconv.FormatUint(n, 10)
	}
	return strconv.FormatUint(n, 10)
}

// group writes n with a comma every three digits (services.Thousands).
func group(n uint64) string { return services.Thousands(n) }

// inZone returns t in loc (UTC when loc is nil).
func inZone(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc)
}

// DayTime formats an instant in the cinema's zone: "Mon 30 Nov, 19:30".
func DayTime(t time.Time, loc *time.Location) string {
	return inZone(t, loc).Format("Mon 2 Jan, 15:04")
}

// ClockTime formats an instant in the cinema's zone as "19:30".
func ClockTime(t time.Time, loc *time.Location) string {
	return inZone(t, loc).Format("15:04")
}

// DayHeading names a local day relative to today: "Today · Mon 30 Nov",
// "Tomorrow · Tue 1 Dec", "Wednesday · 2 Dec".
func DayHeading(day, today time.Time) string {
	y1, m1, d1 := day.Date()
	y0, m0, d0 := today.Date()
	t0 := time.Date(y0, m0, d0, 0, 0, 0, 0, time.UTC)
	t1 := time.Date(y1, m1, d1, 0, 0, 0, 0, time.UTC)
	switch int(t1.Sub(t0).Hours() / 24) {
	case 0:
		return "Today · " + day.Format("Mon 2 Jan")
	case 1:
		return "Tomorrow · " + day.Format("Mon 2 Jan")
	}
	return day.Format("Monday · 2 Jan")
}

// Runtime formats a film's length: "97 min" under an hour is "52 min", else "1 h 37 min".
func Runtime(min int) string {
	if min <= 0 {
		return ""
	}
	if min < 60 {
		return strconv.Itoa(min) + " min"
	}
	return strconv.Itoa(min/60) + " h " + pad2(uint64(min%60)) + " min"
}

// Until says how long until a deadline: "in 14 minutes", "in 1 minute",
// "in less than a minute", "in 2 h 5 min"; "now" once it has passed.
func Until(d time.Duration) string {
	switch {
	case d <= 0:
		return "now"
	case d < time.Minute:
		return "in less than a minute"
	case d < time.Hour:
		m := int(d / time.Minute)
		if m == 1 {
			return "in 1 minute"
		}
		return "in " + strconv.Itoa(m) + " minutes"
	}
	m := int(d / time.Minute)
	return "in " + strconv.Itoa(m/60) + " h " + strconv.Itoa(m%60) + " min"
}

// Minutes formats a duration as whole minutes for sentences: "15 minutes", "1 minute".
func Minutes(d time.Duration) string {
	m := int((d + time.Minute - 1) / time.Minute)
	if m == 1 {
		return "1 minute"
	}
	return strconv.Itoa(m) + " minutes"
}

// JoinLabels lists seat labels in a sentence: "F7", "F7 and F8", "F7, F8 and F9".
func JoinLabels(labels []string) string {
	switch len(labels) {
	case 0:
		return ""
	case 1:
		return labels[0]
	}
	return strings.Join(labels[:len(labels)-1], ", ") + " and " + labels[len(labels)-1]
}

// SeatTakenMessage is what a buyer reads when some of the chosen seats went to someone
// else: "Sorry, F7 and F8 were just taken by someone else."
func SeatTakenMessage(labels []string) string {
	if len(labels) == 0 {
		return "Sorry, some of these seats were just taken by someone else. Please pick again."
	}
	verb := "were"
	if len(labels) == 1 {
		verb = "was"
	}
	return "Sorry, " + JoinLabels(labels) + " " + verb + " just taken by someone else."
}

// Plural returns "1 seat" / "3 seats".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// itoa shortens strconv in templates.
func itoa(n int) string { return strconv.Itoa(n) }

func i64(n int64) string { return strconv.FormatInt(n, 10) }

func hasPrefix(s, prefix string) bool { return strings.HasPrefix(s, prefix) }

func hasSuffix(s, suffix string) bool { return strings.HasSuffix(s, suffix) }

// MoneyParts is how Money writes a currency (services.MoneyParts), for scripts that
// format totals the same way.
func MoneyParts(currency string) (prefix string, decimals int) {
	return services.MoneyParts(currency)
}
