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
// pace buyers a minute that admitted recent buyers in the last minute, sinceOpen after
// the opening. The rate is the pace, or the measured rate when the room has run for 10 s
// and kept less than its pace (an estimate never promises what the room did not keep).
func EstimateWait(position, pace, recent int, sinceOpen time.Duration) Estimate {
	if position <= 0 || pace <= 0 {
		return Estimate{}
	}
	rate := float64(pace) / 60 // buyers a second
	if sinceOpen >= 10*time.Second && recent > 0 {
		window := math.Min(60, sinceOpen.Seconds())
		if measured := float64(recent) / window; measured < rate {
			rate = measured
		}
	}
	secs := float64(position) / rate
	return Estimate{Seconds: int(math.Ceil(secs)), Low: int(math.Floor(secs * 0.8)), High: int(math.Ceil(secs*1.15)) + 3}
}
