package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"
)

// ScenarioSeatMapSmall reads the seat map of a 400-seat show (20 x 20 seats) while a
// quarter of the clients order 1 or 2 seats best-available and cancel each order at
// once, so the map changes for the whole phase. It is the subject of the goal "seat-map
// reads vs HTTP no-op": the goal's own baseline measured a 400-seat hall. ScenarioSeatMap
// reads the 20,000-seat hall, where the bytes of each answer bound the rate.
const ScenarioSeatMapSmall = "seatmap-400"

// seatMapSmallRows x seatMapSmallCols is the hall of ScenarioSeatMapSmall.
const (
	seatMapSmallRows = 20
	seatMapSmallCols = 20
)

// seatMapSmall runs ScenarioSeatMapSmall on a fresh show of a fresh 20 x 20 hall. Its
// audit counts the orders the writers created and did not cancel as live.
func (r *run) seatMapSmall(ctx context.Context) (*Result, error) {
	hall, err := r.fx.NewHall(ctx, "map400", seatMapSmallRows, seatMapSmallCols)
	if err != nil {
		return nil, err
	}
	show, err := r.fx.NewShow(ctx, hall, 4)
	if err != nil {
		return nil, err
	}
	if err := r.warm(ctx, show); err != nil {
		return nil, err
	}
	writers := max(1, r.opts.Clients/4)
	orders := "/api/v1/shows/" + strconv.FormatInt(show, 10) + "/orders"
	path := "/api/v1/shows/" + strconv.FormatInt(show, 10) + "/seats"
	var live, liveSeats, cycles, writeErrs atomic.Int64
	var keys atomic.Int64
	var bytes atomic.Int64
	// write orders 1 or 2 seats for the next buyer and cancels the order at once
	write := func(ctx context.Context, w int) {
		q := 1 + w%2
		zone := zoneStandard
		if w%3 == 0 {
			zone = zonePremium
		}
		b := r.nextBuyer()
		a, err := r.client.Do(ctx, "POST", orders, b.Token, "lt-m-"+strconv.FormatInt(keys.Add(1), 36), orderBody(nil, zone, q), true)
		if err != nil || a.Status != 201 {
			if err != nil || (a.Code != "SOLD_OUT" && a.Code != "NO_ADJACENT_SEATS" && a.Code != "LIMIT_EXCEEDED") {
				if ctx.Err() == nil {
					writeErrs.Add(1)
				}
			}
			time.Sleep(time.Millisecond)
			return
		}
		live.Add(1)
		liveSeats.Add(int64(q))
		var o struct {
			OrderNo string `json:"order_no"`
		}
		if json.Unmarshal(a.Body, &o) != nil || o.OrderNo == "" {
			writeErrs.Add(1)
			return
		}
		c, err := r.client.Do(context.WithoutCancel(ctx), "POST", "/api/v1/orders/"+o.OrderNo+"/cancel", b.Token, "", nil, false)
		if err != nil || c.Status != 200 {
			writeErrs.Add(1)
			return
		}
		live.Add(-1)
		liveSeats.Add(-int64(q))
		cycles.Add(1)
	}
	res, err := r.measure(ctx, ScenarioSeatMapSmall,
		fmt.Sprintf("seat-map reads of a %d-seat show, %d of the clients ordering and cancelling meanwhile", seatMapSmallRows*seatMapSmallCols, writers),
		"seat-map reads", func(ctx context.Context, w int) step {
			if w < writers {
				write(ctx, w)
				return step{skip: true}
			}
			return r.readSeatMap(ctx, path, &bytes)
		})
	if err != nil {
		return nil, err
	}
	if res.OK > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d bytes per seat map on the wire (gzip accepted, not inflated by the load client)", bytes.Load()/res.OK))
	}
	res.Notes = append(res.Notes, fmt.Sprintf("meanwhile %d orders created and cancelled (%.0f/s), %d writer errors",
		cycles.Load(), float64(cycles.Load())/res.Elapsed.Seconds(), writeErrs.Load()))
	res.Errors += writeErrs.Load()
	res.audit = r.audit(ctx, show, 0, live.Load(), liveSeats.Load())
	return res, nil
}
