package demo_test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/demo"
	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
)

// The stadium benchmark (make bench-stadium): the largest hall a layout may describe,
// 300 x 300 cells with aisles (demo.StadiumLayout), 70 % of its seats taken in a
// realistic pattern (demo.StadiumTaken). It creates the hall and a show through the
// catalog writer, loads the seat map through SeatStore.Load (lua/load.lua), takes the
// seats through the seat scripts (hold.lua, then sell.lua for parties that paid), and
// reports the seat map's Redis footprint: MEMORY USAGE (SAMPLES 0) of the show's seats,
// zones and users hashes per seat. Then it writes the same parties as orders in MySQL and
// reloads the map from them, and measures again. Lines start with "stadium:".

// stadiumWorkers is how many callers take seats at once.
const stadiumWorkers = 16

// stadiumUserBase makes buyers' ids 7 digits long, as on a site with a million accounts
// (the id is part of every held or sold seat's value).
const stadiumUserBase = 1_000_000

func BenchmarkStadium(b *testing.B) {
	env := testenv.NewTestEnv(b, testenv.Unlimited)
	ctx := context.Background()
	w := env.CatalogWriter(env.Shows)
	text := demo.StadiumLayout(demo.StadiumOptions{})
	layout, err := catalog.ParseLayout(text, catalog.NumberLeftToRight)
	if err != nil {
		b.Fatal(err)
	}

	start := time.Now()
	hall, err := w.CreateHall(ctx, 0, catalog.HallInput{Name: "Stadium", Layout: text, Numbering: catalog.NumberLeftToRight})
	if err != nil {
		b.Fatal(err)
	}
	createHall := time.Since(start)
	start = time.Now()
	if _, err := env.Catalog.Hall(ctx, hall.ID); err != nil {
		b.Fatal(err)
	}
	readHall := time.Since(start)
	// the heaviest edit: numbering the other way moves every label to another seat (and back)
	start = time.Now()
	if _, err := w.UpdateHall(ctx, 0, hall.ID, catalog.HallInput{Name: "Stadium", Layout: text, Numbering: catalog.NumberRightToLeft}); err != nil {
		b.Fatal(err)
	}
	moveAll := time.Since(start)
	if _, err := w.UpdateHall(ctx, 0, hall.ID, catalog.HallInput{Name: "Stadium", Layout: text, Numbering: catalog.NumberLeftToRight}); err != nil {
		b.Fatal(err)
	}
	movie, err := w.CreateMovie(ctx, 0, "Stadium Night", 120)
	if err != nil {
		b.Fatal(err)
	}
	now := env.Clock.Now()
	show, err := w.CreateShow(ctx, 0, catalog.NewShow{MovieID: movie.ID, HallID: hall.ID, StartsAt: now.Add(48 * time.Hour),
		SaleOpensAt: now.Add(-time.Hour), SaleClosesAt: now.Add(47 * time.Hour), PurchaseLimit: 6,
		Prices: []catalog.ZonePrice{{Zone: catalog.ZoneStandard, PriceMinor: 8000}, {Zone: catalog.ZonePremium, PriceMinor: 18000}, {Zone: catalog.ZoneVIP, PriceMinor: 48000}}})
	if err != nil {
		b.Fatal(err)
	}

	// the show's map was loaded as it went on sale: load it afresh
	if err := env.RDB.Del(ctx, env.Seats.Keys(show.ID)...).Err(); err != nil {
		b.Fatal(err)
	}
	start = time.Now()
	if err := env.Seats.Load(ctx, show.ID); err != nil {
		b.Fatal(err)
	}
	loadEmpty := time.Since(start)

	h, err := env.Catalog.Hall(ctx, hall.ID)
	if err != nil {
		b.Fatal(err)
	}
	byLabel := make(map[string]services.Seat, len(h.Seats))
	for _, s := range h.Seats {
		byLabel[s.Label] = s
	}
	groups := demo.StadiumTaken(layout, 1, 0.7)
	refs := make([][]seats.SeatRef, len(groups))
	taken := 0
	for i, g := range groups {
		for _, j := range g.Seats {
			s := byLabel[layout.Seats[j].Label]
			refs[i] = append(refs[i], seats.SeatRef{ID: s.ID, Zone: s.ZoneCode})
		}
		taken += len(g.Seats)
	}

	start = time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, stadiumWorkers)
	for range stadiumWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(groups); i = int(next.Add(1) - 1) {
				user := int64(stadiumUserBase + i)
				no := services.NewOrderNo(now.Add(time.Duration(i) * time.Millisecond))
				out, err := env.Seats.Hold(ctx, show.ID, no, user, 6, refs[i])
				if err == nil && !out.OK() {
					err = fmt.Errorf("party %d refused: %+v", i, out)
				}
				if err == nil && groups[i].Sold {
					var conflicts []int64
					if conflicts, err = env.Seats.Sell(ctx, show.ID, no, user, refs[i]); err == nil && len(conflicts) > 0 {
						err = fmt.Errorf("party %d: sell found %v taken", i, conflicts)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	takeTime := time.Since(start)

	start = time.Now()
	m, err := env.Shows.SeatMap(ctx, show.ID)
	if err != nil {
		b.Fatal(err)
	}
	readMap := time.Since(start)
	free := 0
	for _, st := range m.States {
		if st == services.StateFree {
			free++
		}
	}
	if free != len(h.Seats)-taken {
		b.Fatalf("%d seats free after taking %d of %d", free, taken, len(h.Seats))
	}

	n := len(h.Seats)
	foot := stadiumFootprint(b, env, show.ID)
	b.Logf("stadium: hall %d x %d, %d seats, %d taken in %d parties (%d paid)", h.Rows, h.Cols, n, taken, len(groups), sold(groups))
	fmt.Printf("stadium: redis_bytes_per_seat=%.1f seats=%d taken=%d parties=%d seats_hash=%d zones_hash=%d users_hash=%d path=scripts\n",
		foot.perSeat(n), n, taken, len(groups), foot.seats, foot.zones, foot.users)
	fmt.Printf("stadium: create_hall_ms=%d read_hall_ms=%d move_every_seat_ms=%d load_empty_ms=%d take_ms=%d holds_per_s=%.0f read_map_ms=%d\n",
		createHall.Milliseconds(), readHall.Milliseconds(), moveAll.Milliseconds(), loadEmpty.Milliseconds(), takeTime.Milliseconds(),
		float64(len(groups))/takeTime.Seconds(), readMap.Milliseconds())
	foot.explain(n)

	// the same parties as orders in MySQL, and the map rebuilt from them
	start = time.Now()
	if _, err := demo.FillShowGroups(ctx, env.DB, show.ID, layout, groups, now); err != nil {
		b.Fatal(err)
	}
	fill := time.Since(start)
	if err := env.RDB.Del(ctx, env.Seats.Keys(show.ID)...).Err(); err != nil {
		b.Fatal(err)
	}
	start = time.Now()
	if err := env.Seats.Load(ctx, show.ID); err != nil {
		b.Fatal(err)
	}
	loadTaken := time.Since(start)
	foot = stadiumFootprint(b, env, show.ID)
	fmt.Printf("stadium: redis_bytes_per_seat=%.1f seats=%d taken=%d parties=%d seats_hash=%d zones_hash=%d users_hash=%d path=load_from_mysql\n",
		foot.perSeat(n), n, taken, len(groups), foot.seats, foot.zones, foot.users)
	fmt.Printf("stadium: fill_orders_ms=%d load_taken_ms=%d\n", fill.Milliseconds(), loadTaken.Milliseconds())
	b.ReportMetric(foot.perSeat(n), "redis_bytes/seat")
}

func sold(groups []demo.StadiumGroup) int {
	n := 0
	for _, g := range groups {
		if g.Sold {
			n++
		}
	}
	return n
}

// footprint is MEMORY USAGE (SAMPLES 0) of a show's three hashes, in bytes, and what
// their fields and values hold.
type footprint struct {
	seats, zones, users            int64
	fieldBytes, valueBytes, fields int64          // of the seats hash
	values                         map[string]int // seat values by their first letter
	env                            *testenv.TestEnv
}

func (f footprint) perSeat(n int) float64 { return float64(f.seats+f.zones+f.users) / float64(n) }

// explain prints what the seats hash holds: the bytes of its fields and values, and
// what is left for Redis's own bookkeeping per field.
func (f footprint) explain(n int) {
	keys := make([]string, 0, len(f.values))
	for k := range f.values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	mix := ""
	for _, k := range keys {
		mix += " " + k + "=" + strconv.Itoa(f.values[k])
	}
	fmt.Printf("stadium: seats_hash_per_seat=%.1f field_bytes_per_seat=%.1f value_bytes_per_seat=%.1f overhead_per_seat=%.1f users_hash_per_seat=%.1f values:%s\n",
		float64(f.seats)/float64(n), float64(f.fieldBytes)/float64(f.fields), float64(f.valueBytes)/float64(f.fields),
		float64(f.seats-f.fieldBytes-f.valueBytes)/float64(f.fields), float64(f.users)/float64(n), mix)
}

func stadiumFootprint(b *testing.B, env *testenv.TestEnv, showID int64) footprint {
	b.Helper()
	ctx := context.Background()
	keys := env.Seats.Keys(showID)
	f := footprint{values: map[string]int{}, env: env}
	for i, dst := range []*int64{&f.seats, &f.zones, &f.users} {
		n, err := env.RDB.MemoryUsage(ctx, keys[i], 0).Result()
		if err != nil {
			b.Fatal(err)
		}
		*dst = n
	}
	all, err := env.RDB.HGetAll(ctx, keys[0]).Result()
	if err != nil {
		b.Fatal(err)
	}
	for k, v := range all {
		f.fields++
		f.fieldBytes += int64(len(k))
		f.valueBytes += int64(len(v))
		f.values[v[:1]]++
	}
	return f
}
