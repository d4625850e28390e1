package seats

import (
	"context"
	"fmt"
	"strconv"
)

// ExchangeOutcome is what the exchange script found: Hold is the hold of the new seats
// (its refusal, or OK with the seats the rule found stranded), Freed how many old seats
// it freed (owner-checked) after holding the new ones.
type ExchangeOutcome struct {
	Hold  HoldOutcome
	Freed int
}

// Exchange moves order orderNo of userID from the seats of out to those of in, in one
// call of lua/exchange.lua on the show's slot: every seat of in must be free (hold.lua's
// checks, with the single-seat rule and its rows from RuleArgs over in, counting the
// seats of out free), then they are held (sold when sold is true: a paid order) for the
// order and only then the seats of out are freed where the order still has them. A
// refusal writes nothing. The purchase limit is not checked (the order keeps its count
// of seats), nor the waiting list's gate (the zones keep their free counts), and the
// voucher uses stay. A missing map is loaded from MySQL first. Errors: UNAVAILABLE (the
// script may have run), INVALID_REQUEST (a seat listed twice).
func (s *SeatStore) Exchange(ctx context.Context, showID int64, orderNo string, userID int64, sold bool, in, out []SeatRef, rule string, rows []string) (ExchangeOutcome, error) {
	return s.exchangeRun(ctx, showID, orderNo, userID, sold, in, out, rule, rows, true)
}

// ExchangeInTx is Exchange for a caller inside a MySQL transaction: a missing map is not
// loaded (the load's locking reads may wait for the transaction's own locks, until its
// timeout) but answered as UNAVAILABLE with IsNotLoaded: roll back, Load, try again.
func (s *SeatStore) ExchangeInTx(ctx context.Context, showID int64, orderNo string, userID int64, sold bool, in, out []SeatRef, rule string, rows []string) (ExchangeOutcome, error) {
	return s.exchangeRun(ctx, showID, orderNo, userID, sold, in, out, rule, rows, false)
}

func (s *SeatStore) exchangeRun(ctx context.Context, showID int64, orderNo string, userID int64, sold bool, in, out []SeatRef, rule string, rows []string, load bool) (ExchangeOutcome, error) {
	state := "H"
	if sold {
		state = "S"
	}
	args := []any{state, strconv.Itoa(len(out))}
	args = append(args, RefArgs(out)...)
	if rule == "" || len(rows) == 0 {
		rule, rows = "", nil
	}
	// no purchase limit (the count of seats stays) and the offer flag (no waiting-list gate)
	lim := "1000000000|" + rule + "|" + strconv.Itoa(len(rows)) + "|" + HoldOffer + "|" + strconv.Itoa(len(out))
	args = append(args, orderNo, strconv.FormatInt(userID, 10), lim)
	args = append(args, RefArgs(in)...)
	for _, r := range rows {
		args = append(args, r)
	}
	for _, r := range out {
		args = append(args, strconv.FormatInt(r.ID, 10))
	}
	res, err := s.runOn(ctx, showID, s.exchange, s.Keys(showID), args, load)
	if err != nil {
		return ExchangeOutcome{}, err
	}
	var o ExchangeOutcome
	if len(res) >= 3 && res[0] == "OK" && res[len(res)-2] == "|" {
		o.Freed, _ = strconv.Atoi(res[len(res)-1])
		res = res[:len(res)-2]
	} else if res[0] == "OK" {
		return ExchangeOutcome{}, fmt.Errorf("exchange script: unexpected reply %v", res)
	}
	o.Hold, err = parseHold(res)
	return o, err
}
