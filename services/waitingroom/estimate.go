package waitingroom

import (
	"math"
	"time"
)

// Estimate is a waiting buyer's expected wait in whole seconds: Seconds at the pace the
// room keeps, within Low..High. High allows for the tickers' one-second step and for a
// pace the room has not kept; Low for places ahead that will be abandoned.
type Estimate struct{ Seconds, Low, High int }

// EstimateWait estimates the wait of the buyer at position (1-based) in a room paced at
// pace buyers a minute that admitted recent buyers in the last busy window (the time,
// up to a minute, in which its queue was never empty: admissions then were limited by
// the pace, not by who came). The rate is the pace, or the measured rate when the window
// is at least 10 s long and the room kept less than its pace in it (an estimate never
// promises what the room did not keep).
func EstimateWait(position, pace, recent int, busyFor time.Duration) Estimate {
	if position <= 0 || pace <= 0 {
		return Estimate{}
	}
	rate := float64(pace) / 60 // buyers a second
	if busyFor >= 10*time.Second {
		window := math.Min(60, busyFor.Seconds())
		if measured := math.Max(float64(recent), 1) / window; measured < rate {
			rate = measured
		}
	}
	secs := float64(position) / rate
	return Estimate{Seconds: int(math.Ceil(secs)), Low: int(math.Floor(secs * 0.8)), High: int(math.Ceil(secs*1.15)) + 3}
}
