package services

import (
	"sync"
	"time"
)

// Cinema is one site of the install: its halls, the IANA time zone its shows are listed,
// typed and mailed in, and the ISO 4217 currency of its prices (API.md "Cinemas").
type Cinema struct {
	ID        int64     `db:"id"`
	Name      string    `db:"name"`
	TimeZone  string    `db:"time_zone"`
	Currency  string    `db:"currency"`
	CreatedAt time.Time `db:"created_at"`
}

// Loc returns the cinema's time zone (UTC when its name is empty or unknown).
func (c *Cinema) Loc() *time.Location { return Location(c.TimeZone) }

// locations caches time.LoadLocation's answers by IANA name: every show of a chain is
// shown in its cinema's zone, and reading the zone database once per name is enough.
var locations sync.Map // string -> *time.Location

// Location returns the IANA time zone named name, UTC when name is empty or unknown
// (names are checked when a cinema is written: CheckTimeZone).
func Location(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	if loc, ok := locations.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	locations.Store(name, loc)
	return loc
}

// CheckTimeZone returns INVALID_REQUEST unless name is an IANA time zone such as
// "Europe/London" ("Local" and "" are refused: a cinema names its zone).
func CheckTimeZone(name string) error {
	if name == "" || name == "Local" {
		return Errorf(CodeInvalidRequest, "time_zone must be an IANA time zone such as Europe/London")
	}
	if _, err := time.LoadLocation(name); err != nil {
		return Errorf(CodeInvalidRequest, "time_zone %q is not an IANA time zone (such as Europe/London)", name)
	}
	return nil
}
