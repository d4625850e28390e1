package waitingroom_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/waitingroom"
)

// gatedEnv is the service layer with the env's show behind a waiting room whose tokens
// the order path checks; a user may create one order a minute (so a refused attempt
// that spent a rate-limit token would show).
func gatedEnv(t *testing.T) (*testenv.TestEnv, *waitingroom.Tokens) {
	limits := testenv.Unlimited
	limits.UserPerMinute, limits.UserBurst = 1, 1
	e := testenv.NewTestEnv(t, limits)
	e.Exec("UPDATE shows SET waiting_room = 1, admit_per_minute = 60 WHERE id = ?", e.Show.ID)
	e.Catalog.ForgetShow(e.Show.ID)
	tokens := waitingroom.NewTokens([]byte("shared"), nil)
	e.Orders.SetAdmission(tokens)
	return e, tokens
}

// TestWaitingRoom_NoOrderWithoutAValidToken: with the room on, an order without a
// token, with a forged one, another buyer's, another show's or an expired one is
// refused NOT_ADMITTED before a rate-limit token or a hold is spent (the same buyer's
// order with their own token then succeeds at once); 40 buyers racing for the same
// seats, half of them admitted, leave orders only to the admitted.
func TestWaitingRoom_NoOrderWithoutAValidToken(t *testing.T) {
	e, tokens := gatedEnv(t)
	now := e.Clock.Now()
	buyer, stranger := e.User(1), e.User(2)
	seat := e.SeatIDs("A1")
	create := func(user int64, token string) error {
		_, err := e.Orders.Create(context.Background(), orders.CreateOrderRequest{UserID: user, ShowID: e.Show.ID, SeatIDs: seat, AdmissionToken: token})
		return err
	}
	for _, c := range []struct{ name, token string }{
		{"no token", ""},
		{"forged", waitingroom.NewTokens([]byte("guess"), nil).Sign(buyer, e.Show.ID, 0, now.Add(time.Minute))},
		{"another buyer's", tokens.Sign(stranger, e.Show.ID, 0, now.Add(time.Minute))},
		{"another show's", tokens.Sign(buyer, e.Show.ID+1, 0, now.Add(time.Minute))},
		{"expired", tokens.Sign(buyer, e.Show.ID, 0, now)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := create(buyer, c.token); services.ErrorCode(err) != services.CodeNotAdmitted {
				t.Fatalf("got %v, want NOT_ADMITTED", err)
			}
		})
	}
	if err := create(buyer, tokens.Sign(buyer, e.Show.ID, 0, now.Add(time.Minute))); err != nil {
		t.Fatalf("the buyer's own token after five refusals: %v (a refusal spent a rate-limit token or a hold?)", err)
	}
	e.CheckInvariants()

	// the race: 40 buyers, even ones admitted, all after the same four seats
	race := e.SeatIDs("C1", "C2", "C3", "C4")
	var wg sync.WaitGroup
	admitted := map[int64]bool{}
	users := make([]int64, 40)
	for i := range users {
		users[i] = e.User(100 + i)
		admitted[users[i]] = i%2 == 0
	}
	errs := make([]error, len(users))
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			token := ""
			if admitted[u] {
				token = tokens.Sign(u, e.Show.ID, 0, now.Add(time.Minute))
			}
			_, errs[i] = e.Orders.Create(context.Background(), orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID,
				SeatIDs: race[i/2%4 : i/2%4+1], AdmissionToken: token})
		}()
	}
	wg.Wait()
	for i, u := range users {
		if !admitted[u] && services.ErrorCode(errs[i]) != services.CodeNotAdmitted {
			t.Errorf("buyer %d without a token: %v, want NOT_ADMITTED", u, errs[i])
		}
	}
	var owners []int64
	if err := e.DB.Select(&owners, "SELECT user_id FROM orders WHERE show_id = ?", e.Show.ID); err != nil {
		t.Fatal(err)
	}
	for _, u := range owners {
		if u != buyer && !admitted[u] {
			t.Errorf("an order of buyer %d, never admitted", u)
		}
	}
	if len(owners) != 1+4 {
		t.Errorf("%d orders, want 5 (the buyer's and one per raced seat)", len(owners))
	}
	e.CheckInvariants()
	t.Logf("%d orders, all admitted buyers'", len(owners))
}
