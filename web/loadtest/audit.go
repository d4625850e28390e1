package loadtest

import (
	"context"
	"fmt"
	"time"

	"seatflow/services/seats"
	"seatflow/services/store"
)

// AuditLine is one check of the audit that follows every scenario: what was counted
// and whether it must be 0.
type AuditLine struct {
	Check      string
	Count      int64
	MustBeZero bool
}

// Failed reports whether the line is non-zero where it must be zero.
func (a AuditLine) Failed() bool { return a.MustBeZero && a.Count != 0 }

// auditError is the single line of an audit that could not run.
func auditError(err error) []AuditLine {
	return []AuditLine{{Check: "audit could not run: " + err.Error(), Count: 1, MustBeZero: true}}
}

// abs64 is |v|.
func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// audit checks a show against MySQL and Redis directly: seats and orders in MySQL
// against what the clients saw created (fixtureSeats + seats in orders orders), live
// seats of orders that are not live, every seat of MySQL against Redis (the same
// comparison reconciliation makes, without grace), holds without orders, and buyers
// over the show's purchase limit.
func (r *run) audit(ctx context.Context, showID, fixtureSeats, orders, seatList int64) []AuditLine {
	var dbOrders, dead int64
	dbSeats, err := store.LoadTestLiveSeatCount(ctx, r.db, showID)
	if err == nil {
		dbOrders, err = store.LoadTestLiveOrderCount(ctx, r.db, showID)
	}
	if err == nil {
		dead, err = store.LoadTestDeadSeatCount(ctx, r.db, showID)
	}
	if err != nil {
		return auditError(err)
	}
	over, err := r.usersOverLimit(ctx, showID)
	if err != nil {
		return auditError(err)
	}
	show, err := r.catalog.Show(ctx, showID)
	if err != nil {
		return auditError(err)
	}
	truth, err := r.store.SnapshotFromDB(ctx, show)
	if err != nil {
		return auditError(err)
	}
	cache, err := r.store.ReadCache(ctx, showID)
	if err != nil {
		return auditError(err)
	}
	hall, err := r.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return auditError(err)
	}
	zoneOf := map[int64]string{}
	for _, st := range hall.Seats {
		if st.Sellable() {
			zoneOf[st.ID] = st.ZoneCode
		}
	}
	findings, _ := seats.CompareSeatCache(seats.SeatComparison{ShowID: showID, Truth: truth, Cache: cache, ZoneOf: zoneOf, Now: time.Now()})
	var seatDiff, counterDiff, holdsNoOrder int64
	for _, f := range findings {
		switch f.Kind {
		case seats.FindingHoldWithoutOrder:
			holdsNoOrder++
		case seats.FindingZoneCount, seats.FindingUserCount:
			counterDiff++
		default:
			seatDiff++
		}
	}
	return []AuditLine{
		{Check: fmt.Sprintf("seats sold in MySQL %d vs in orders seen created %d: difference", dbSeats, fixtureSeats+seatList), Count: abs64(dbSeats - fixtureSeats - seatList), MustBeZero: true},
		{Check: fmt.Sprintf("live orders in MySQL %d vs seen created %d: difference", dbOrders, orders), Count: abs64(dbOrders - orders), MustBeZero: true},
		{Check: "live seats of orders that are not live", Count: dead, MustBeZero: true},
		{Check: "seats where MySQL and Redis differ", Count: seatDiff, MustBeZero: true},
		{Check: "zone and user counters that differ", Count: counterDiff, MustBeZero: true},
		{Check: "holds without orders", Count: holdsNoOrder, MustBeZero: true},
		{Check: "users over the purchase limit", Count: over, MustBeZero: true},
	}
}

// usersOverLimit counts buyers who hold or own more live seats of the show than its
// purchase limit.
func (r *run) usersOverLimit(ctx context.Context, showID int64) (int64, error) {
	return store.LoadTestUsersOverLimit(ctx, r.db, showID)
}
