package invariants

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// Invariant 19 — a voucher's live uses never exceed max_uses. Two guards, as for
// invariant 1: lua/order.lua counts the voucher's uses in the show's slot
// (<prefix>:{show:N}:vouchers) and refuses a hold past its cap (max_uses less its live
// uses in other shows, from a 1 s cache) in the same script as the seats; the group
// commit's guarded UPDATE of vouchers.uses (uses + n <= max_uses) is the authority, across
// shows, instances and a Redis loss, and the CHECK ck_vouchers_uses backs it. Every end of
// an order gives its uses back in its transition's transaction (store.GiveBackVoucherUses),
// the release script in Redis; reconciliation rebuilds the Redis counts from voucher_uses.

// voucherHall makes a hall of 210 standard seats (10 rows of 21) with a show on sale,
// and makes it the env's show.
func voucherHall(e *testenv.TestEnv, name string) []int64 {
	rows := make([]testenv.RowSpec, 10)
	for i := range rows {
		rows[i] = testenv.RowSpec{Zone: "standard", Seats: strings.Repeat("S", 21)}
	}
	e.Hall = e.MakeLayout(name, rows...)
	e.Show = e.OnSaleShow(e.Hall.ID, 0)
	ids := make([]int64, len(e.Hall.Seats))
	for i, s := range e.Hall.Seats {
		ids[i] = s.ID
	}
	return ids
}

// raceVoucher has each of users order one seat of show (seat i) with code at once, and
// returns the orders created and the count of each error code.
func raceVoucher(e *testenv.TestEnv, show *services.Show, users, seatIDs []int64, code string, midway func()) ([]*services.Order, map[string]int) {
	var (
		mu      sync.Mutex
		created []*services.Order
		codes   = map[string]int{}
		wg      sync.WaitGroup
		done    atomic.Int32
	)
	start := make(chan struct{})
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			o, err := e.Orders.Create(context.Background(), orders.CreateOrderRequest{UserID: u, ShowID: show.ID, SeatIDs: seatIDs[i : i+1], Voucher: code})
			if n := done.Add(1); n == int32(len(users)/4) && midway != nil {
				midway()
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				codes[services.ErrorCode(err)]++
				return
			}
			created = append(created, o)
		}()
	}
	close(start)
	wg.Wait()
	return created, codes
}

// TestVoucher_RaceOf200BuyersOnA10UseCodeGivesExactly10: 200 buyers order one seat each
// with a code of 10 uses at the same moment: exactly 10 orders are created, each with
// its discount, the other 190 are VOUCHER_INVALID, and MySQL's uses, its voucher_uses
// rows and the show's Redis count are all 10 (invariant 19).
func TestVoucher_RaceOf200BuyersOnA10UseCodeGivesExactly10(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ids := voucherHall(e, "Voucher race hall")
	v := e.MakeVoucher("RACE-10", 10, 20)
	created, codes := raceVoucher(e, e.Show, e.BulkUsers(200), ids, "race-10", nil)
	if len(created) != 10 || codes[services.CodeVoucherInvalid] != 190 {
		t.Fatalf("%d orders created, refusals %v; want 10 and 190 VOUCHER_INVALID", len(created), codes)
	}
	for _, o := range created {
		if o.Voucher != "RACE-10" || o.DiscountMinor != 900 || o.TotalMinor != 3600 {
			t.Errorf("order %s: voucher %q, discount %d, total %d", o.OrderNo, o.Voucher, o.DiscountMinor, o.TotalMinor)
		}
	}
	if uses, rows, redis := e.VoucherUses(v.ID, e.Show.ID); uses != 10 || rows != 10 || redis != 10 {
		t.Errorf("uses %d, voucher_uses rows %d, Redis %d; want 10 each", uses, rows, redis)
	}
	e.CheckInvariants()
}

// TestVoucher_FlushInTheMiddleGivesNoMoreThanMaxUses: Redis is flushed while 200 buyers
// race for a code of 10 uses. The maps and voucher counts come back from MySQL (which
// misses the holds in flight, so Redis may admit more holds than uses are left), and the
// commit's guarded update refuses the excess: never more than 10 live uses in MySQL.
// Reconciliation then leaves Redis's counts equal to MySQL's.
func TestVoucher_FlushInTheMiddleGivesNoMoreThanMaxUses(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ids := voucherHall(e, "Voucher flush hall")
	v := e.MakeVoucher("FLUSH-10", 10, 50)
	created, codes := raceVoucher(e, e.Show, e.BulkUsers(200), ids, "FLUSH-10", func() {
		if err := e.RDB.FlushDB(context.Background()).Err(); err != nil {
			t.Error(err)
		}
	})
	t.Logf("%d orders created, refusals %v", len(created), codes)
	uses, rows, _ := e.VoucherUses(v.ID, e.Show.ID)
	if uses > 10 || uses != rows || int(uses) != len(created) {
		t.Fatalf("MySQL: uses %d, voucher_uses rows %d, %d orders created; want at most 10, all equal", uses, rows, len(created))
	}
	if c := e.ReconcileUntilClean(testenv.NewReconciler(e, nil), 5, e.Show); !c.Clean {
		t.Fatalf("reconciliation did not converge: %v", c)
	}
	if _, _, redis := e.VoucherUses(v.ID, e.Show.ID); redis != uses {
		t.Errorf("Redis counts %d uses after reconciliation, MySQL %d", redis, uses)
	}
	e.CheckInvariants()
}

// TestVoucher_TwoShowsShareOneVoucherAndMySQLKeepsTheTotal: one code of 10 uses valid for
// two shows, 60 buyers racing in each at once. Each show's Redis cap only knows the
// other show's uses as the 1 s cache read them (none), so Redis lets up to 10 holds
// through in each; the guarded update in the commit keeps the total at 10. Both shows'
// Redis counts end equal to MySQL's.
func TestVoucher_TwoShowsShareOneVoucherAndMySQLKeepsTheTotal(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ids := voucherHall(e, "Voucher two shows hall")
	first := e.Show
	second := e.OnSaleShow(e.Hall.ID, 10)
	v := e.MakeVoucher("SHARED-10", 10, 10)
	users := e.BulkUsers(120)
	var wg sync.WaitGroup
	results := make([][]*services.Order, 2)
	refusals := make([]map[string]int, 2)
	for i, show := range []*services.Show{first, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], refusals[i] = raceVoucher(e, show, users[60*i:60*(i+1)], ids, v.Code, nil)
		}()
	}
	wg.Wait()
	total := len(results[0]) + len(results[1])
	t.Logf("orders per show: %d and %d; refusals %v and %v", len(results[0]), len(results[1]), refusals[0], refusals[1])
	if total != 10 || refusals[0][services.CodeVoucherInvalid]+refusals[1][services.CodeVoucherInvalid] != 110 {
		t.Fatalf("%d orders created across both shows, refusals %v %v; want 10 and 110 VOUCHER_INVALID", total, refusals[0], refusals[1])
	}
	var inRedis int64
	for i, show := range []*services.Show{first, second} {
		uses, rows, redis := e.VoucherUses(v.ID, show.ID)
		if uses != 10 || rows != 10 || redis != int64(len(results[i])) {
			t.Errorf("show %d: uses %d, rows %d, Redis %d for %d orders", show.ID, uses, rows, redis, len(results[i]))
		}
		inRedis += redis
	}
	if inRedis != 10 {
		t.Errorf("the shows' Redis counts add up to %d, want 10", inRedis)
	}
	// the holds past the total reached MySQL, whose guard refused them
	if n := testutil.ToFloat64(e.Orders.Metrics().CommitBatchRetries.WithLabelValues("refused")); n == 0 {
		t.Error("no batch was refused by the guarded update: the race never reached MySQL's guard")
	}
	e.CheckInvariants()
	e.CheckInvariantsOf(second)
}
