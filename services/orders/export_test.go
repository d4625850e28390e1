package orders

import (
	"io"
	"time"

	"seatflow/services"
)

// SetTicketRand makes the paid transition draw ticket codes from r (tests replay a draw
// to force a collision).
func (o *Orders) SetTicketRand(r io.Reader) { o.ticketRand = r }

// SetRateLimiter replaces the rate limiter of the orders service (tests change limits
// half way).
func (o *Orders) SetRateLimiter(r *RateLimiter) { o.limiter = r }

// IdempotencyKeyNames returns the lock and seen keys of a buyer's Idempotency-Key for a
// show under a key prefix, as the orders service names them.
func IdempotencyKeyNames(prefix string, showID, userID int64, key string) [2]string {
	l := newKeyLocks(nil, prefix)
	return [2]string{l.name(showID, userID, key), l.seenName(showID, userID, key)}
}

// SetIDStep fixes the ids step of the group commit's multi-row INSERT (0: read the ids
// back by order number), as AutoIncrementStep would have read it from the server.
func (o *Orders) SetIDStep(step int64) {
	o.idStepMu.Lock()
	defer o.idStepMu.Unlock()
	o.idStepVal, o.idStepKnown = step, true
}

// ExpiryGroups is expiryGroups as deadline → the orders of its task.
func ExpiryGroups(list []*services.Order) map[time.Time][]string {
	out := map[time.Time][]string{}
	for _, g := range expiryGroups(list) {
		out[g.at] = g.orderNos
	}
	return out
}
