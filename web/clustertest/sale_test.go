package clustertest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"seatflow/web/loadtest"
)

// sale is a sale load through the balancer that runs until stopped: buyers race
// holds, orders, cancels and payments on several shows, half of the orders on the
// first (busy) show, and every answer is recorded for the history check. An answer
// that is lost (a transport error, or 502/504 from the balancer: the instance died or
// timed out) is an unknown outcome; a create with an unknown outcome is asked again
// with its Idempotency-Key until an answer comes.
type sale struct {
	c      *cluster
	hall   *loadtest.Hall
	shows  []int64
	buyers []loadtest.Buyer

	mu             sync.Mutex
	grants         []*grant
	codes          map[string]int // answers by request kind and status/code
	requests       int
	successes      int              // 2xx answers
	unknown        int              // answers lost
	unknownCreates int              // creates whose outcome stayed unknown after their retries
	failures       []time.Time      // when each lost or 5xx answer came
	perSecond      map[int64][2]int // second since start -> successes, failures
	started        time.Time
	stop           chan struct{}
	wg             sync.WaitGroup
}

// saleShows is how many shows a fault's sale runs on.
const saleShows = 6

// newSale makes a hall of rows x cols, saleShows shows (purchase limit 4) and n buyers.
func newSale(ctx context.Context, t *testing.T, c *cluster, rows, cols, n int) *sale {
	fx := c.fixtures(ctx)
	hall, err := fx.NewHall(ctx, "fault", rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	s := &sale{c: c, hall: hall, codes: map[string]int{}, perSecond: map[int64][2]int{}, stop: make(chan struct{})}
	for range saleShows {
		id, err := fx.NewShow(ctx, hall, 4)
		if err != nil {
			t.Fatal(err)
		}
		s.shows = append(s.shows, id)
	}
	if s.buyers, err = fx.NewVisitors(ctx, s.shows[0], n); err != nil {
		t.Fatal(err)
	}
	return s
}

// lost reports whether an answer is an unknown outcome: no answer, or the balancer's
// 502/504 (the request may or may not have reached an instance and committed).
func lost(a answer) bool {
	return a.err != nil || a.status == http.StatusBadGateway || a.status == http.StatusGatewayTimeout
}

// note records one answer.
func (s *sale) note(what string, a answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	sec := int64(time.Since(s.started) / time.Second)
	ps := s.perSecond[sec]
	switch {
	case lost(a):
		s.unknown++
		s.failures = append(s.failures, a.done)
		ps[1]++
		if a.err != nil {
			s.codes[what+" lost (transport)"]++
		} else {
			s.codes[fmt.Sprintf("%s lost (%d)", what, a.status)]++
		}
	case a.status >= 300:
		if a.status >= 500 {
			s.failures = append(s.failures, a.done)
			ps[1]++
		}
		s.codes[fmt.Sprintf("%s %d %s", what, a.status, a.code())]++
	default:
		s.successes++
		ps[0]++
		s.codes[fmt.Sprintf("%s %d", what, a.status)]++
	}
	s.perSecond[sec] = ps
}

// start starts the buyers; they run until finish.
func (s *sale) start(ctx context.Context, t *testing.T) {
	s.started = time.Now()
	for i, b := range s.buyers {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.buyer(ctx, t, i, b)
		}()
	}
}

// finish stops the buyers and waits for their last requests.
func (s *sale) finish() {
	close(s.stop)
	s.wg.Wait()
}

// buyer is one buyer's loop: pick a show (the busy one half the time) and a block of
// one to three seats (half the time among the first 40 seats), create an order, then
// cancel it (60 %), pay it (25 %) or keep it.
func (s *sale) buyer(ctx context.Context, t *testing.T, i int, b loadtest.Buyer) {
	rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
	for r := 0; ; r++ {
		select {
		case <-s.stop:
			return
		default:
		}
		show := s.shows[0]
		if rng.IntN(2) == 0 {
			show = s.shows[1+rng.IntN(len(s.shows)-1)]
		}
		n := 1 + rng.IntN(3)
		span := len(s.hall.Seats)
		if rng.IntN(2) == 0 {
			span = min(40, span)
		}
		k := rng.IntN(span - n + 1)
		ids := make([]string, n)
		for j := range ids {
			ids[j] = strconv.FormatInt(s.hall.Seats[k+j].ID, 10)
		}
		path, key := fmt.Sprintf("/api/v1/shows/%d/orders", show), fmt.Sprintf("flt-%d-%d-%d", show, i, r)
		var a answer
		for try := 0; try < 6; try++ { // an unknown outcome is asked again with the same key
			if try > 0 {
				time.Sleep(500 * time.Millisecond)
			}
			a = s.c.do(ctx, s.c.base, "POST", path, b.Token, map[string]any{"seat_ids": ids}, "Idempotency-Key", key)
			if try == 0 {
				s.note("create", a)
			} else {
				s.note("create again", a)
			}
			if !lost(a) && a.status != http.StatusServiceUnavailable {
				break
			}
		}
		if lost(a) || a.status >= 500 {
			s.mu.Lock()
			s.unknownCreates++
			s.mu.Unlock()
			continue
		}
		if a.status != http.StatusCreated && a.status != http.StatusOK {
			continue
		}
		g := grantOf(show, b.ID, a)
		if g == nil {
			t.Errorf("%d without an order: %s", a.status, a.body)
			continue
		}
		switch p := rng.Float64(); {
		case p < 0.6:
			g.cancelSent = time.Now()
			a := s.c.do(ctx, s.c.base, "POST", "/api/v1/orders/"+g.orderNo+"/cancel", b.Token, nil)
			s.note("cancel", a)
			g.cancelled = !lost(a) && a.status == http.StatusOK && jsonStatus(a.body) == "cancelled"
		case p < 0.85:
			a := s.c.do(ctx, s.c.base, "POST", "/api/v1/orders/"+g.orderNo+"/pay", b.Token, nil)
			s.note("pay", a)
			var pay struct {
				PaymentID string `json:"payment_id"`
			}
			if lost(a) || a.status != http.StatusOK || json.Unmarshal(a.body, &pay) != nil {
				break
			}
			w := s.c.webhook(ctx, pay.PaymentID, g.total)
			s.note("webhook", w)
			g.payStarted = !lost(w) && w.status == http.StatusOK
			g.payUnknown = lost(w) || w.status >= 500
			if g.payStarted {
				rd := s.c.do(ctx, s.c.base, "GET", "/api/v1/orders/"+g.orderNo, b.Token, nil)
				s.note("read", rd)
				g.paidSeen = !lost(rd) && rd.status == http.StatusOK && jsonStatus(rd.body) == "paid"
			}
		}
		s.mu.Lock()
		s.grants = append(s.grants, g)
		s.mu.Unlock()
	}
}
