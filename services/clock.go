package services

import "time"

// Clock tells the current time. Services take one so tests can move time (deadlines,
// sale windows) without sleeping.
type Clock interface{ Now() time.Time }

// SystemClock is the real clock, in UTC.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }
