package orders

import (
	"strconv"
	"time"
)

// LimitCountWindow is how long after a rebuild of a show's per-user counts every new
// order still counts the buyer's seats in MySQL before it commits: well over the time an
// order takes from its hold to its commit (store.RedisTimeout + store.DBTimeout), so an order held
// before the rebuild and one held after it always meet in one of the two counts.
const LimitCountWindow = 15 * time.Second

// NeedsLimitCount decides whether an order's transaction must count the buyer's live
// seats in MySQL, the purchase limit's second line (DESIGN.md, order pipeline). The
// hold script enforces the limit from Redis's per-user counts, and those are wrong only
// around a rebuild from MySQL (a wiped or evicted map, a repair), which misses holds
// whose orders are not committed yet. holdMark is the counts' marker (their rebuild
// time, Redis's clock in ms) the order's hold saw, nowMark the marker read before the
// commit, redisNow Redis's clock then. It says yes when the counts were rebuilt after
// the hold, when they were rebuilt less than limitCountWindow ago, and whenever a marker
// is missing or unreadable (maps written before markers, "0"). limitRefusals
// (commit.go) applies it to every order of a batch.
func NeedsLimitCount(holdMark, nowMark string, redisNow time.Time) bool {
	if holdMark == "" || holdMark != nowMark {
		return true
	}
	ms, err := strconv.ParseInt(nowMark, 10, 64)
	if err != nil || ms <= 0 {
		return true
	}
	return redisNow.Sub(time.UnixMilli(ms)) < LimitCountWindow
}
