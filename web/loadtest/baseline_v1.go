package loadtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// The V1 baseline: order creation done the damai V1 way, to compare with. It exists only
// here, talks to Redis and MySQL directly and keeps its seat state under its own keys:
// take a Redis lock per show (SET NX with an expiry), read the whole seat state
// (HGETALL), check the seats and the purchase limit in Go, write the holds (HSET),
// insert the order and its seats into MySQL, unlock.

// v1LockWait is how long a V1 client waits for the show's lock before it gives up.
const v1LockWait = 10 * time.Second

// v1Unlock deletes the lock only when it still holds this client's token.
var v1Unlock = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// v1Keys returns the V1 seat state hash and lock key of a show.
func v1Keys(showID int64) (state, lock string) {
	tag := "loadtest:v1:{show:" + strconv.FormatInt(showID, 10) + "}:"
	return tag + "seats", tag + "lock"
}

// baselineV1 sells a fresh show of the big hall the V1 way with the same clients and
// the same mix of requests as the flash sale.
func (r *run) baselineV1(ctx context.Context) (*Result, error) {
	limit := r.bigShowLimit()
	show, err := r.fx.NewShow(ctx, r.big, limit)
	if err != nil {
		return nil, err
	}
	stateKey, lockKey := v1Keys(show)
	pipe := r.rdb.Pipeline()
	pipe.Del(ctx, stateKey, lockKey)
	for _, st := range r.big.Seats {
		pipe.HSet(ctx, stateKey, strconv.FormatInt(st.ID, 10), "F")
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("v1 seat state: %w", err)
	}
	rows := map[string][][]SeatInfo{} // zone -> rows of seats in column order
	for i := 0; i < len(r.big.Seats); {
		j := i
		for j < len(r.big.Seats) && r.big.Seats[j].Row == r.big.Seats[i].Row {
			j++
		}
		z := r.big.Seats[i].Zone
		rows[z] = append(rows[z], r.big.Seats[i:j])
		i = j
	}
	s := newSale(show, r.big, r.opts.Clients)
	res, err := r.measure(ctx, ScenarioV1, "V1 baseline: flash sale with a Redis lock per show, state checked in Go", "created orders",
		func(ctx context.Context, w int) step {
			seats, zone, q := s.pick(w)
			if q == 0 {
				return step{stop: true, skip: true}
			}
			st := r.v1Order(ctx, s, w, stateKey, lockKey, rows, seats, zone, q, limit)
			if st.o == OutOK && s.sold.Load() >= int64(len(r.big.Seats)) {
				st.stop = true
			}
			return st
		})
	if err != nil {
		return nil, err
	}
	res.SeatsSold = s.sold.Load()
	res.SoldOut = res.SeatsSold >= int64(len(r.big.Seats)) || (s.soldOut[zonePremium].Load() && s.soldOut[zoneStandard].Load())
	res.Notes = append(res.Notes, fmt.Sprintf("%d seats sold in %d orders; sold out: %s", res.SeatsSold, s.orders.Load(), yesNo(res.SoldOut)),
		"runs in the load-test process against Redis and MySQL directly: no HTTP, sessions or JSON, which favours it")
	res.audit = r.auditV1(ctx, show, stateKey, s.orders.Load(), s.sold.Load())
	r.rdb.Del(context.WithoutCancel(ctx), stateKey)
	return res, nil
}

// v1Order is one V1 order: lock, read, check, write, insert, unlock.
func (r *run) v1Order(ctx context.Context, s *sale, w int, stateKey, lockKey string, rows map[string][][]SeatInfo,
	seatList []SeatInfo, zone string, q, limit int) step {
	b := r.nextBuyer()
	token := strconv.Itoa(w) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	give := time.Now().Add(v1LockWait)
	for {
		ok, err := r.rdb.SetNX(ctx, lockKey, token, 5*time.Second).Result()
		if err != nil {
			return step{o: OutError, code: "redis", detail: err.Error()}
		}
		if ok {
			break
		}
		if time.Now().After(give) {
			return step{o: OutError, code: "LOCK_TIMEOUT", detail: "no lock in " + v1LockWait.String()}
		}
		time.Sleep(time.Millisecond)
	}
	defer v1Unlock.Run(context.WithoutCancel(ctx), r.rdb, []string{lockKey}, token)
	state, err := r.rdb.HGetAll(ctx, stateKey).Result()
	if err != nil {
		return step{o: OutError, code: "redis", detail: err.Error()}
	}
	uid := strconv.FormatInt(b.ID, 10)
	owned := 0
	for _, v := range state {
		if v != "F" && strings.HasSuffix(v, "|"+uid) {
			owned++
		}
	}
	if zone != "" {
		seatList = v1BestAvailable(state, rows[zone], q)
		if seatList == nil {
			free := false
			for _, row := range rows[zone] {
				for _, st := range row {
					free = free || state[strconv.FormatInt(st.ID, 10)] == "F"
				}
			}
			if !free {
				s.soldOut[zone].Store(true)
				return step{o: OutRejected, code: "SOLD_OUT"}
			}
			s.narrow[zone].Store(true)
			return step{o: OutRejected, code: "NO_ADJACENT_SEATS"}
		}
	}
	for _, st := range seatList {
		if state[strconv.FormatInt(st.ID, 10)] != "F" {
			return step{o: OutRejected, code: "SEAT_TAKEN"}
		}
	}
	if owned+len(seatList) > limit {
		return step{o: OutRejected, code: "LIMIT_EXCEEDED"}
	}
	now := time.Now().UTC()
	no := services.NewOrderNo(now)
	held := make([]any, 0, 2*len(seatList))
	freed := make([]any, 0, 2*len(seatList))
	var total int64
	for _, st := range seatList {
		id := strconv.FormatInt(st.ID, 10)
		held = append(held, id, seats.EncodeSeat(false, no, b.ID))
		freed = append(freed, id, "F")
		total += fixturePrices[st.Zone]
	}
	if err := r.rdb.HSet(ctx, stateKey, held...).Err(); err != nil {
		return step{o: OutError, code: "redis", detail: err.Error()}
	}
	if err := insertOrder(ctx, r.db, no, b.ID, s.show, services.OrderPending, total, r.opts.Currency, now, seatList, true); err != nil {
		r.rdb.HSet(context.WithoutCancel(ctx), stateKey, freed...)
		return step{o: OutError, code: "mysql", detail: err.Error()}
	}
	s.orders.Add(1)
	s.sold.Add(int64(len(seatList)))
	return step{o: OutOK, code: "created"}
}

// v1BestAvailable returns the first q free seats side by side in a row of the zone,
// nil when no row has them.
func v1BestAvailable(state map[string]string, rows [][]SeatInfo, q int) []SeatInfo {
	for _, row := range rows {
		run := 0
		for i, st := range row {
			if state[strconv.FormatInt(st.ID, 10)] == "F" && (run == 0 || row[i-1].Col == st.Col-1) {
				run++
			} else if state[strconv.FormatInt(st.ID, 10)] == "F" {
				run = 1
			} else {
				run = 0
			}
			if run == q {
				return row[i-q+1 : i+1]
			}
		}
	}
	return nil
}

// auditV1 checks the V1 show: seats and orders in MySQL against what was created,
// every seat of MySQL against the V1 seat state, V1 holds without a live order, and
// buyers over the purchase limit.
func (r *run) auditV1(ctx context.Context, showID int64, stateKey string, orders, seatList int64) []AuditLine {
	show, err := r.catalog.Show(ctx, showID)
	if err != nil {
		return auditError(err)
	}
	truth, err := r.store.SnapshotFromDB(ctx, show)
	if err != nil {
		return auditError(err)
	}
	state, err := r.rdb.HGetAll(ctx, stateKey).Result()
	if err != nil {
		return auditError(err)
	}
	var dbSeats, diff, noOrder int64
	live := map[string]bool{}
	for _, v := range truth.Values {
		if _, no, _ := seats.SeatValue(v); no != "" {
			live[no] = true
			dbSeats++
		}
	}
	for id, want := range truth.Values {
		got := state[strconv.FormatInt(id, 10)]
		if got != want && !(want == "B" && got == "") {
			diff++
		}
		if _, no, _ := seats.SeatValue(got); no != "" && !live[no] {
			noOrder++
		}
	}
	dbOrders, err := store.LoadTestLiveOrderCount(ctx, r.db, showID)
	if err != nil {
		return auditError(err)
	}
	over, err := r.usersOverLimit(ctx, showID)
	if err != nil {
		return auditError(err)
	}
	return []AuditLine{
		{Check: fmt.Sprintf("seats sold in MySQL %d vs in orders seen created %d: difference", dbSeats, seatList), Count: abs64(dbSeats - seatList), MustBeZero: true},
		{Check: fmt.Sprintf("live orders in MySQL %d vs seen created %d: difference", dbOrders, orders), Count: abs64(dbOrders - orders), MustBeZero: true},
		{Check: "seats where MySQL and the V1 state differ", Count: diff, MustBeZero: true},
		{Check: "V1 holds without orders", Count: noOrder, MustBeZero: true},
		{Check: "users over the purchase limit", Count: over, MustBeZero: true},
	}
}
