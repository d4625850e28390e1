package catalog_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// Layouts of the race tests' hall: rows A to D, and the same without row D.
const (
	withRowD    = "SSSS\nSSSS\nSSSS\nSSSS"
	withoutRowD = "SSSS\nSSSS\nSSSS"
)

// raceHall is a hall of four rows with one show of it on sale, as the env's show (so
// CheckInvariants checks it), and a catalog writer.
type raceHall struct {
	e     *testenv.TestEnv
	w     *catalog.CatalogWriter
	staff int64
	hall  *catalog.HallLayout
	ids   map[string]int64 // label -> seat id, as the hall was made
}

func newRaceHall(t *testing.T) *raceHall {
	e, w, staff, m := newCatalogWriterEnv(t)
	h, err := w.CreateHall(context.Background(), staff, catalog.HallInput{Name: "Row D", Layout: withRowD})
	if err != nil {
		t.Fatal(err)
	}
	e.Show = hallShow(t, e, w, staff, m, h, e.Clock.Now().Add(26*time.Hour).Truncate(time.Hour))
	return &raceHall{e: e, w: w, staff: staff, hall: h, ids: hallSeatIDsByLabel(e, h.ID)}
}

// edit sets the hall's layout.
func (r *raceHall) edit(layout string) error {
	_, err := r.w.UpdateHall(context.Background(), r.staff, r.hall.ID, catalog.HallInput{Name: "Row D", Layout: layout})
	return err
}

// order orders the labelled seats of the show for user n.
func (r *raceHall) order(n int, labels ...string) (*services.Order, error) {
	var ids []int64
	for _, l := range labels {
		ids = append(ids, r.ids[l])
	}
	return r.e.Orders.Create(context.Background(), orders.CreateOrderRequest{UserID: r.e.User(n), ShowID: r.e.Show.ID, SeatIDs: ids})
}

// settle brings the show's seat map in line with the hall (as the edit's and a refused
// order's refreshes do in the background) and checks the invariants.
func (r *raceHall) settle(t *testing.T) {
	t.Helper()
	r.e.Shows.RefreshHall(context.Background(), r.hall.ID)
	r.e.CheckInvariants()
}

// TestHallEdit_EditBetweenHoldAndCommit_RefusesTheOrder: staff remove row D after a
// buyer's D1+D2 are held in Redis and before the order commits. The edit wins (nothing
// of the order is in MySQL yet); the order is refused with SEAT_NOT_IN_SHOW, never
// created on seats that left the hall and never a 500. When staff put row D back, D1 is
// the same seat id again and sells once. (Invariant 12.)
func TestHallEdit_EditBetweenHoldAndCommit_RefusesTheOrder(t *testing.T) {
	r := newRaceHall(t)
	// an earlier, cancelled order names D1: D1 leaves the hall as a retired seat, D2
	// (named by nothing) is deleted
	early, err := r.order(4, "D1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.Orders.Cancel(context.Background(), early.UserID, early.OrderNo); err != nil {
		t.Fatal(err)
	}
	var editErr error
	edited := false
	r.e.Orders.SetFailHook(func(stage string) error {
		if stage == "held" && !edited {
			edited = true
			editErr = r.edit(withoutRowD)
		}
		return nil
	})
	o, err := r.order(1, "D1", "D2")
	r.e.Orders.SetFailHook(nil)
	if editErr != nil {
		t.Fatalf("the edit (no order committed yet): %v", editErr)
	}
	var se *services.Error
	if !errors.As(err, &se) || se.Code != services.CodeSeatNotInShow || len(se.Seats) != 2 {
		t.Fatalf("the order on removed seats: %+v %v, want SEAT_NOT_IN_SHOW naming D1, D2", o, err)
	}
	r.settle(t)
	if got := r.e.SeatVal(r.e.Show.ID, r.ids["D1"]); got != "" {
		t.Errorf("D1 left the hall but is %q on the seat map", got)
	}

	if err := r.edit(withRowD); err != nil {
		t.Fatalf("putting row D back: %v", err)
	}
	got := hallSeatIDsByLabel(r.e, r.hall.ID)
	if got["D1"] != r.ids["D1"] || got["D2"] == r.ids["D2"] {
		t.Errorf("row D came back as seats %d, %d; want D1 (retired) as %d again and D2 (deleted) new", got["D1"], got["D2"], r.ids["D1"])
	}
	r.ids = got
	first, err := r.order(2, "D1", "D2")
	if err != nil {
		t.Fatalf("D1+D2 once row D is back: %v", err)
	}
	r.e.Pay(first)
	if _, err := r.order(3, "D1"); services.ErrorCode(err) != services.CodeSeatTaken {
		t.Fatalf("D1 a second time: %v, want SEAT_TAKEN", err)
	}
	r.settle(t)
}

// TestHallEdit_OrderCommittingFirst_RefusesTheEdit: an edit removing row D while an
// order of D1 is inside its MySQL transaction waits for it (the order holds its seats
// locked) and is then refused with CONFLICT naming D1 and the show. The order stands.
func TestHallEdit_OrderCommittingFirst_RefusesTheEdit(t *testing.T) {
	r := newRaceHall(t)
	inTx, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	r.e.Orders.SetFailHook(func(stage string) error {
		if stage == "insert" {
			once.Do(func() { close(inTx); <-release })
		}
		return nil
	})
	defer r.e.Orders.SetFailHook(nil)
	type result struct {
		o   *services.Order
		err error
	}
	done := make(chan result, 1)
	go func() { o, err := r.order(1, "D1"); done <- result{o, err} }()
	<-inTx
	edit := make(chan error, 1)
	go func() { edit <- r.edit(withoutRowD) }()
	select {
	case err := <-edit:
		t.Fatalf("the edit did not wait for the committing order: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	res := <-done
	if res.err != nil {
		t.Fatalf("the order: %v", res.err)
	}
	err := <-edit
	var se *services.Error
	if !errors.As(err, &se) || se.Code != services.CodeConflict || len(se.Seats) != 1 || se.Seats[0] != "D1" {
		t.Fatalf("the edit after the order committed: %v, want CONFLICT naming D1", err)
	}
	if got := hallSeatIDsByLabel(r.e, r.hall.ID); len(got) != 16 {
		t.Errorf("the refused edit changed the hall: %d seats", len(got))
	}
	r.settle(t)
}

// TestHallEdit_RacesOrders runs, round after round, a buyer ordering D1+D2 against staff
// removing row D, then row D put back and a second buyer ordering D1+D2. In every round
// exactly one of the first order and the edit wins, the loser gets the contract's answer
// (SEAT_NOT_IN_SHOW or PRICE_CHANGED for the order, CONFLICT for the edit, never
// UNAVAILABLE), and no physical seat ends in two live orders (invariant 12).
func TestHallEdit_RacesOrders(t *testing.T) {
	r := newRaceHall(t)
	r.e.QuietLogs()
	r.e.Orders.SetFailHook(func(stage string) error {
		if stage == "held" {
			time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond) // widen the window
		}
		return nil
	})
	defer r.e.Orders.SetFailHook(nil)
	rounds, orderWon, editWon, atCommit := 40, 0, 0, 0
	if testing.Short() {
		rounds = 10
	}
	for round := 0; round < rounds; round++ {
		var (
			wg      sync.WaitGroup
			o       *services.Order
			err     error
			editErr error
		)
		wg.Add(2)
		go func() { defer wg.Done(); o, err = r.order(1, "D1", "D2") }()
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
			editErr = r.edit(withoutRowD)
		}()
		wg.Wait()
		switch {
		case err == nil && editErr == nil:
			t.Fatalf("round %d: the order %s (D1, D2) and the edit removing row D both succeeded", round, o.OrderNo)
		case err == nil:
			if services.ErrorCode(editErr) != services.CodeConflict {
				t.Fatalf("round %d: the edit after the order: %v, want CONFLICT", round, editErr)
			}
			orderWon++
			if _, err := r.order(2, "D1", "D2"); services.ErrorCode(err) != services.CodeSeatTaken {
				t.Fatalf("round %d: D1+D2 again while the first order lives: %v, want SEAT_TAKEN", round, err)
			}
			if _, err := r.e.Orders.Cancel(context.Background(), o.UserID, o.OrderNo); err != nil {
				t.Fatal(err)
			}
		default:
			if c := services.ErrorCode(err); c != services.CodeSeatNotInShow && c != services.CodePriceChanged {
				t.Fatalf("round %d: the order racing the edit: %v, want SEAT_NOT_IN_SHOW", round, err)
			}
			if editErr != nil {
				t.Fatalf("round %d: the edit after a refused order: %v", round, editErr)
			}
			editWon++
			if se := (*services.Error)(nil); errors.As(err, &se) && strings.HasPrefix(se.Message, "the hall changed") {
				atCommit++ // held in Redis, refused by the commit's check
			}
			if err := r.edit(withRowD); err != nil {
				t.Fatalf("round %d: putting row D back: %v", round, err)
			}
			r.ids = hallSeatIDsByLabel(r.e, r.hall.ID) // D2 may be a new seat
			second, err := r.order(2, "D1", "D2")
			if err != nil {
				t.Fatalf("round %d: D1+D2 once row D is back: %v", round, err)
			}
			if _, err := r.e.Orders.Cancel(context.Background(), second.UserID, second.OrderNo); err != nil {
				t.Fatal(err)
			}
		}
	}
	r.settle(t)
	t.Logf("%d rounds: the order won %d, the edit won %d (%d orders refused at commit, after their hold)", rounds, orderWon, editWon, atCommit)
}

// TestHallEdit_KeepsHouseSeats: a seat kept as a house seat for a show that has not
// started is as taken as a sold one: removing it is refused naming it; once the show has
// started the seat leaves the hall as a retired seat (its house-seat row still names it)
// instead of failing on the row, and comes back with its id. (Invariant 12.)
func TestHallEdit_KeepsHouseSeats(t *testing.T) {
	r := newRaceHall(t)
	r.e.Exec("INSERT INTO show_house_seats (show_id, seat_id, reason, created_at) VALUES (?, ?, 'press', ?)",
		r.e.Show.ID, r.ids["D3"], r.e.Clock.Now())
	err := r.edit(withoutRowD)
	var se *services.Error
	if !errors.As(err, &se) || se.Code != services.CodeConflict || len(se.Seats) != 1 || se.Seats[0] != "D3" ||
		!strings.Contains(se.Message, "D3 house seat") {
		t.Fatalf("removing a house seat: %v, want CONFLICT naming D3 as a house seat", err)
	}
	r.e.Clock.Advance(27 * time.Hour) // the show has started
	if err := r.edit(withoutRowD); err != nil {
		t.Fatalf("removing row D after the show started: %v", err)
	}
	if err := r.edit(withRowD); err != nil {
		t.Fatal(err)
	}
	if got := hallSeatIDsByLabel(r.e, r.hall.ID); got["D3"] != r.ids["D3"] {
		t.Errorf("D3 came back as seat %d, was %d", got["D3"], r.ids["D3"])
	}
}

// TestHallEdit_StaleHallCache_RefusesNotUnavailable: a process whose cached hall still
// has row D (another process made the edit) orders D1 after the edit took D1 out of the
// seat map. The hold finds no field for D1; the order is refused with SEAT_NOT_IN_SHOW
// from the hall as MySQL has it, never UNAVAILABLE. (Invariant 12.)
func TestHallEdit_StaleHallCache_RefusesNotUnavailable(t *testing.T) {
	r := newRaceHall(t)
	other := catalog.NewCatalog(r.e.DB).WithClock(r.e.Clock) // another process's caches
	if _, err := other.Hall(context.Background(), r.hall.ID); err != nil {
		t.Fatal(err)
	}
	elsewhere := orders.NewOrders(r.e.DB, other, r.e.Seats, r.e.Limiter, r.e.Clock, orders.OrdersConfig{Expiry: r.e.Expiry})
	if _, err := r.order(1, "A1"); err != nil { // the map is loaded
		t.Fatal(err)
	}
	if err := r.edit(withoutRowD); err != nil {
		t.Fatal(err)
	}
	_, err := elsewhere.Create(context.Background(), orders.CreateOrderRequest{UserID: r.e.User(2), ShowID: r.e.Show.ID, SeatIDs: []int64{r.ids["D1"]}})
	if services.ErrorCode(err) != services.CodeSeatNotInShow {
		t.Fatalf("ordering D1 through a stale hall: %v, want SEAT_NOT_IN_SHOW", err)
	}
	r.settle(t)
}
