package loadtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"
)

// Scenario names accepted by Options.Scenarios, in the order they run.
const (
	ScenarioFlash = "flash"
	// ScenarioFlashMixed ("flash-mixed", mixed.go) follows it
	ScenarioSoldOut  = "soldout"
	ScenarioHotSeats = "hotseats"
	ScenarioSeatMap  = "seatmap" // ScenarioSeatMapSmall ("seatmap-400", seatmap_small.go) follows it
	ScenarioV1       = "v1"
)

// ScenarioWaitRoom is not in the standard set: it inserts its own crowd of visitors and
// runs only when asked for (-scenarios waitroom).
const ScenarioWaitRoom = "waitroom"

// AllScenarios is the standard set.
var AllScenarios = []string{ScenarioFlash, ScenarioFlashMixed, ScenarioSoldOut, ScenarioHotSeats, ScenarioSeatMap, ScenarioSeatMapSmall, ScenarioV1}

// KnownScenarios are the scenarios Options.Scenarios may name: the standard set and
// the waiting room.
var KnownScenarios = append(append([]string{}, AllScenarios...), ScenarioWaitRoom)

// sale is the state of one flash sale as the clients see it: blocks of up to 4 adjacent
// seats for chosen-seat orders (each handed out once), the zones found sold out, and
// the seats of created orders.
type sale struct {
	show      int64
	hall      *Hall
	blocks    [][]SeatInfo
	nextBlock atomic.Int64
	sold      atomic.Int64
	orders    atomic.Int64
	soldOut   map[string]*atomic.Bool
	narrow    map[string]*atomic.Bool // best-available found no block: ask for 1 seat
	rngs      []*rand.Rand
	keys      atomic.Int64
	// voucher, when set, makes every order name ticket types and this voucher
	// (mixedOrderBody, ScenarioFlashMixed)
	voucher string
}

// newSale cuts the hall's rows into blocks of 4 seats in random order, one generator
// per client.
func newSale(show int64, h *Hall, clients int) *sale {
	s := &sale{show: show, hall: h, soldOut: map[string]*atomic.Bool{}, narrow: map[string]*atomic.Bool{}}
	for i := 0; i < len(h.Seats); {
		j := i
		for j < len(h.Seats) && j-i < 4 && h.Seats[j].Row == h.Seats[i].Row {
			j++
		}
		s.blocks = append(s.blocks, h.Seats[i:j])
		i = j
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	rng.Shuffle(len(s.blocks), func(i, j int) { s.blocks[i], s.blocks[j] = s.blocks[j], s.blocks[i] })
	for _, z := range []string{zonePremium, zoneStandard} {
		s.soldOut[z], s.narrow[z] = new(atomic.Bool), new(atomic.Bool)
	}
	for w := 0; w <= clients; w++ {
		s.rngs = append(s.rngs, rand.New(rand.NewPCG(seed, uint64(w)+1)))
	}
	return s
}

// buy sends one order of 1 to 4 seats for the next buyer: half chosen seats (a fresh
// block while any is left), half best-available in a zone not yet sold out. It returns
// the outcome and stop=true once every zone answered SOLD_OUT or every seat is sold.
func (r *run) buy(ctx context.Context, s *sale, w int) step {
	seats, zone, q := s.pick(w)
	if q == 0 {
		return step{stop: true, skip: true}
	}
	var ids []int64
	for _, st := range seats {
		ids = append(ids, st.ID)
	}
	b := r.nextBuyer()
	key := "lt-" + strconv.FormatInt(s.keys.Add(1), 36) + "-" + strconv.FormatInt(s.show, 10)
	body := orderBody(ids, zone, q)
	if s.voucher != "" {
		body = mixedOrderBody(ids, zone, q, s.voucher)
	}
	a, err := r.client.Do(ctx, "POST", "/api/v1/shows/"+strconv.FormatInt(s.show, 10)+"/orders", b.Token, key, body, false)
	if err != nil {
		return step{o: OutError, code: "transport", detail: err.Error()}
	}
	switch {
	case a.Status == 201:
		s.orders.Add(1)
		if s.sold.Add(int64(q)) >= int64(len(s.hall.Seats)) {
			return step{o: OutOK, code: "201", stop: true}
		}
		return step{o: OutOK, code: "201"}
	case a.Code == "SOLD_OUT" && zone != "":
		s.soldOut[zone].Store(true)
		return step{o: OutRejected, code: a.Code}
	case a.Code == "NO_ADJACENT_SEATS" && zone != "":
		s.narrow[zone].Store(true)
		return step{o: OutRejected, code: a.Code}
	case a.Code == "SEAT_TAKEN" || a.Code == "LIMIT_EXCEEDED" || a.Code == "SOLD_OUT" || a.Code == "RATE_LIMITED":
		return step{o: OutRejected, code: a.Code}
	}
	return step{o: OutError, code: answerCode(a), detail: string(a.Body)}
}

// pick chooses the next request of client w: chosen seats (half of the requests, while
// blocks are left) or a zone and quantity for best-available. q == 0: every zone is
// sold out.
func (s *sale) pick(w int) (seats []SeatInfo, zone string, q int) {
	rng := s.rngs[w%len(s.rngs)]
	if rng.IntN(2) == 0 {
		if b := int(s.nextBlock.Add(1) - 1); b < len(s.blocks) {
			blk := s.blocks[b]
			seats = blk[:min(len(blk), 1+rng.IntN(4))]
			return seats, "", len(seats)
		}
	}
	zones := []string{zonePremium, zoneStandard}
	if rng.IntN(3) > 0 { // standard is the bigger zone
		zones[0], zones[1] = zones[1], zones[0]
	}
	for _, z := range zones {
		if !s.soldOut[z].Load() {
			zone = z
			break
		}
	}
	if zone == "" {
		return nil, "", 0
	}
	q = 1 + rng.IntN(4)
	if s.narrow[zone].Load() {
		q = 1
	}
	return nil, zone, q
}

// answerCode names an answer: its error code, else its status.
func answerCode(a Answer) string {
	if a.Code != "" {
		return a.Code
	}
	return strconv.Itoa(a.Status)
}

// warm reads a show's seat map once (the server loads it into Redis): a sale meets a
// warm map.
func (r *run) warm(ctx context.Context, show int64) error {
	return r.client.JSON(ctx, "GET", "/api/v1/shows/"+strconv.FormatInt(show, 10)+"/seats", "", nil, nil)
}

// preload loads a big show's seat map PreloadLead before its sale starts (see Options).
func (r *run) preload(ctx context.Context, show int64) error {
	if err := r.warm(ctx, show); err != nil {
		return err
	}
	if r.opts.PreloadLead > 0 {
		fmt.Fprintf(r.opts.Log, "seat map of show %d loaded; the sale starts in %s\n", show, r.opts.PreloadLead)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(r.opts.PreloadLead):
		}
	}
	return nil
}

// bigShowLimit is the purchase limit of the big shows: the buyers could buy every seat
// twice over, so LIMIT_EXCEEDED stays rare while buyers take turns.
func (r *run) bigShowLimit() int {
	return max(4, (2*len(r.big.Seats)+len(r.buyers)-1)/len(r.buyers))
}

// flashSale sells a fresh show of the big hall until it is sold out (or the duration
// ends): chosen seats and best-available, 1 to 4 seats each.
func (r *run) flashSale(ctx context.Context) (*Result, error) {
	show, err := r.fx.NewShow(ctx, r.big, r.bigShowLimit())
	if err != nil {
		return nil, err
	}
	if err := r.preload(ctx, show); err != nil {
		return nil, err
	}
	s := newSale(show, r.big, r.opts.Clients)
	res, err := r.measureFor(ctx, r.opts.FlashMax, ScenarioFlash, fmt.Sprintf("flash sale of %d seats (chosen and best-available, 1-4 seats)", len(r.big.Seats)),
		"created orders", func(ctx context.Context, w int) step { return r.buy(ctx, s, w) })
	if err != nil {
		return nil, err
	}
	res.SeatsSold = s.sold.Load()
	res.SoldOut = res.SeatsSold >= int64(len(r.big.Seats)) || (s.soldOut[zonePremium].Load() && s.soldOut[zoneStandard].Load())
	res.Notes = append(res.Notes, fmt.Sprintf("%d seats sold in %d orders; sold out: %s", res.SeatsSold, s.orders.Load(), yesNo(res.SoldOut)))
	res.audit = r.audit(ctx, show, 0, s.orders.Load(), s.sold.Load())
	return res, nil
}

// rejectionStorm sends orders that must all be refused: on a sold-out show (hot false:
// best-available and chosen seats, answered SOLD_OUT or SEAT_TAKEN) or on a few hot
// seats already sold on a show with free seats (hot true: SEAT_TAKEN).
func (r *run) rejectionStorm(ctx context.Context, hot bool) (*Result, error) {
	show, err := r.fx.NewShow(ctx, r.small, 4)
	if err != nil {
		return nil, err
	}
	taken := r.small.Seats
	name, title := ScenarioSoldOut, fmt.Sprintf("rejection storm on a sold-out show (%d seats)", len(taken))
	if hot {
		taken = taken[:8]
		name, title = ScenarioHotSeats, "rejection storm on 8 hot seats (sold) of a show with free seats"
	}
	// the fixture orders go to the last buyers; the storm starts with the first ones
	orders, err := r.fx.SellSeats(ctx, show, taken, r.buyers[len(r.buyers)/2:], 4)
	if err != nil {
		return nil, err
	}
	if err := r.warm(ctx, show); err != nil {
		return nil, err
	}
	path := "/api/v1/shows/" + strconv.FormatInt(show, 10) + "/orders"
	rngs := make([]*rand.Rand, r.opts.Clients)
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))
	}
	var keys atomic.Int64
	res, err := r.measure(ctx, name, title, "taken answers", func(ctx context.Context, w int) step {
		rng := rngs[w]
		var body []byte
		if !hot && rng.IntN(2) == 0 {
			zone := zoneStandard
			if rng.IntN(3) == 0 {
				zone = zonePremium
			}
			body = orderBody(nil, zone, 1+rng.IntN(4))
		} else {
			k := 1 + rng.IntN(4)
			i := rng.IntN(len(taken) - k + 1)
			ids := make([]int64, k)
			for j := range ids {
				ids[j] = taken[i+j].ID
			}
			body = orderBody(ids, "", 0)
		}
		b := r.nextBuyer()
		a, err := r.client.Do(ctx, "POST", path, b.Token, "lt-"+strconv.FormatInt(keys.Add(1), 36), body, false)
		if err != nil {
			return step{o: OutError, code: "transport", detail: err.Error()}
		}
		if a.Status == 409 && (a.Code == "SEAT_TAKEN" || a.Code == "SOLD_OUT" || a.Code == "NO_ADJACENT_SEATS") {
			return step{o: OutOK, code: a.Code}
		}
		if a.Code == "LIMIT_EXCEEDED" || a.Code == "RATE_LIMITED" {
			return step{o: OutRejected, code: a.Code}
		}
		return step{o: OutError, code: answerCode(a), detail: string(a.Body)}
	})
	if err != nil {
		return nil, err
	}
	res.audit = r.audit(ctx, show, int64(len(taken)), int64(orders), 0)
	return res, nil
}

// seatMapDuringSale reads a show's seat map with three quarters of the clients while the
// other quarter buys seats of it.
func (r *run) seatMapDuringSale(ctx context.Context) (*Result, error) {
	show, err := r.fx.NewShow(ctx, r.big, r.bigShowLimit())
	if err != nil {
		return nil, err
	}
	if err := r.preload(ctx, show); err != nil {
		return nil, err
	}
	s := newSale(show, r.big, r.opts.Clients)
	writers := max(1, r.opts.Clients/4)
	buys := NewRecorder(time.Now(), int(r.opts.Duration/time.Second)+60)
	path := "/api/v1/shows/" + strconv.FormatInt(show, 10) + "/seats"
	var bytes atomic.Int64
	res, err := r.measure(ctx, ScenarioSeatMap, fmt.Sprintf("seat-map reads of a %d-seat show, %d of the clients buying meanwhile", len(r.big.Seats), writers),
		"seat-map reads", func(ctx context.Context, w int) step {
			if w < writers {
				t0 := time.Now()
				st := r.buy(ctx, s, w)
				if st.skip { // sold out: the writers rest, the readers go on
					time.Sleep(10 * time.Millisecond)
				} else if ctx.Err() == nil || st.o != OutError {
					buys.Observe(st.o, time.Since(t0), time.Now(), st.code, st.detail)
				}
				return step{skip: true}
			}
			return r.readSeatMap(ctx, path, &bytes)
		})
	if err != nil {
		return nil, err
	}
	ok, rej, errs := buys.Counts()
	if res.OK > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d KiB per seat map on the wire (gzip accepted, not inflated by the load client)", bytes.Load()/res.OK/1024))
	}
	res.Notes = append(res.Notes, fmt.Sprintf("meanwhile %d orders created (%.0f/s, p99 %s), %d refused, %d errors",
		ok, float64(ok)/res.Elapsed.Seconds(), fmtMS(buys.Lat.Percentile(99)), rej, errs))
	if _, first := buys.Codes(); first != "" {
		res.Notes = append(res.Notes, "first error of the buyers: "+truncate(first, 300))
	}
	res.Errors += errs
	res.audit = r.audit(ctx, show, 0, s.orders.Load(), s.sold.Load())
	return res, nil
}

// readSeatMap reads a seat map (path) as a browser does, gzip accepted, and adds the
// bytes that crossed the wire to bytes: one step of a seat-map scenario.
func (r *run) readSeatMap(ctx context.Context, path string, bytes *atomic.Int64) step {
	a, err := r.client.GetGzip(ctx, path)
	if err != nil {
		return step{o: OutError, code: "transport", detail: err.Error()}
	}
	if a.Status != 200 {
		return step{o: OutError, code: answerCode(a), detail: string(a.Body)}
	}
	bytes.Add(int64(a.Bytes))
	return step{o: OutOK, code: "200"}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
