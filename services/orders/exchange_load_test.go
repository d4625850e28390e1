package orders_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services/internal/testenv"
	"seatflow/services/store"
)

// TestExchange_LoadsAMissingMapOutsideItsTransaction: an exchange whose script finds the
// show's seat map missing (a flush, a failover) must not load it inside its transaction.
// The load reads the house seats with a locking read, which waits for any transaction
// writing them; if that transaction in turn waits for a seat the exchange has locked,
// neither InnoDB nor anything else sees the cycle and the show's buyers wait out the
// database timeout. Here a staff transaction has a house-seat row of the show written and
// not committed; once the exchange's load waits for it, that transaction asks for the
// exchange's new seat with a one-second lock wait: it must get it (the exchange rolled
// back before loading), and the exchange must then go through.
func TestExchange_LoadsAMissingMapOutsideItsTransaction(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	o, err := e.Create(e.User(1), e.SeatIDs("C1")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.RDB.Del(ctx, e.Seats.Keys(e.Show.ID)...).Err(); err != nil { // the map is lost
		t.Fatal(err)
	}
	staff, err := e.DB.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer staff.Rollback()
	if _, err := staff.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	if err := store.InsertHouseSeats(ctx, staff, e.Show.ID, e.SeatIDs("A1"), e.User(9), "press", e.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := exchangeTo(e, o, "E4")
		done <- err
	}()
	// the load's locking read of the house seats waits for the staff transaction
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := e.DB.GetContext(ctx, &waiting, `SELECT COUNT(*) FROM information_schema.PROCESSLIST
			WHERE INFO LIKE 'SELECT%show_house_seats%' AND ID <> CONNECTION_ID()`); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the exchange never loaded the seat map")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var id int64
	if err := staff.GetContext(ctx, &id, "SELECT id FROM seats WHERE id = ? FOR UPDATE", e.SeatIDs("E4")[0]); err != nil {
		t.Errorf("the staff transaction waited for the exchange's lock on E4 while the exchange's load waited for it: %v", err)
	}
	if err := staff.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the exchange after the map was lost: %v", err)
	}
	if v := e.SeatVal(e.Show.ID, e.SeatIDs("E4")[0]); v != testenv.HeldBy(o) {
		t.Errorf("E4 is %q in the reloaded map, want the order's hold", v)
	}
	e.CheckInvariants()
}
