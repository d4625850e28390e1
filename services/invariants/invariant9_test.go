package invariants

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
)

// TestInvariant9_KeysShareOneHashSlot proves invariant 9: the three keys a script
// touches carry the show as a hash tag, so they land in one Redis Cluster slot (a
// script over keys of different slots fails with CROSSSLOT in a cluster); and ids reach
// Lua as strings, so seat and user ids above 2^53, which a Lua number (a double) cannot
// tell apart, still name distinct seats and users.
//
// Invariant 9 is kept by SeatStore.Keys, SeatStore.FenceKey, store.NewLease, the
// Idempotency-Keys' and the order rate buckets' names under the show's tag (keyLocks in
// services/orders/idempotency.go, SeatStore.ShowKey) and seats.RefArgs; the other
// rate-limit keys (logins, registrations, resets) are redis_rate's own calls. Besides this test,
// TestInvariant9_ClusterScriptsStayInOneSlot and TestInvariant9_EveryScriptIsKnown
// (cluster_test.go), TestIdempotencyKeys_OneHashSlot (services/orders/precheck_test.go)
// and TestInvariant9_RoomKeysShareTheShowsSlot (services/waitingroom/slot_test.go) prove
// it.
func TestInvariant9_KeysShareOneHashSlot(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	if got := testenv.RedisCRC16("123456789"); got != 0x31C3 {
		t.Fatalf("crc16 self-check: %#x", got)
	}
	for _, show := range []int64{e.Show.ID, 42, 1 << 40, 1<<62 + 7} {
		// the hold script's fourth key, the waiting list's gate, too
		keys := append(e.Seats.Keys(show), e.Seats.WaitlistGateKey(show), e.Seats.FenceKey(show))
		tag := "{show:" + strconv.FormatInt(show, 10) + "}"
		for _, k := range keys {
			if !strings.Contains(k, tag) {
				t.Errorf("key %s lacks the tag %s", k, tag)
			}
			if testenv.ClusterSlot(k) != testenv.ClusterSlot(keys[0]) {
				t.Errorf("show %d: %s is in slot %d, %s in %d", show, k, testenv.ClusterSlot(k), keys[0], testenv.ClusterSlot(keys[0]))
			}
		}
	}
	if testenv.ClusterSlot(e.Seats.Keys(1)[0]) == testenv.ClusterSlot(e.Seats.Keys(2)[0]) && testenv.ClusterSlot(e.Seats.Keys(2)[0]) == testenv.ClusterSlot(e.Seats.Keys(3)[0]) {
		t.Error("every show lands in the same slot: the tag does not carry the show")
	}

	// ids above 2^53 round-trip through the scripts
	show := int64(1<<62 + 7)
	keys := e.Seats.Keys(show)
	lo, hi := int64(1<<60), int64(1<<60+1) // the same double
	user := int64(1<<60 + 3)
	los, his, users := strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10), strconv.FormatInt(user, 10)
	if err := e.Seats.LoadScript().Run(ctx, e.RDB, keys, "0", "0", "2", los, "F", his, "F", "1", "standard", "2").Err(); err != nil {
		t.Fatal(err)
	}
	out, err := e.Seats.Hold(ctx, show, "BIGORDER", user, 4, []seats.SeatRef{{ID: hi, Zone: "standard"}})
	if err != nil || !out.OK() {
		t.Fatalf("hold of seat 2^60+1: %+v %v", out, err)
	}
	if v := e.RDB.HGet(ctx, keys[0], his).Val(); v != "H|BIGORDER|"+users {
		t.Errorf("seat 2^60+1 is %q", v)
	}
	if v := e.RDB.HGet(ctx, keys[0], los).Val(); v != "F" {
		t.Errorf("seat 2^60 is %q: it was taken for 2^60+1", v)
	}
	if n := e.RDB.HLen(ctx, keys[0]).Val(); n != 3 {
		t.Errorf("%d seat fields, want 2 and the \"_\" marker", n)
	}
	if v := e.RDB.HGet(ctx, keys[2], users).Val(); v != "1" {
		t.Errorf("user 2^60+3 counter %q", v)
	}
	if st, no, uid := seats.SeatValue("H|BIGORDER|" + users); st != services.StateHeld || no != "BIGORDER" || uid != user {
		t.Errorf("SeatValue: %s %s %d", st, no, uid)
	}
	out, err = e.Seats.Hold(ctx, show, "OTHER", user+1, 4, []seats.SeatRef{{ID: lo, Zone: "standard"}, {ID: hi, Zone: "standard"}})
	if err != nil || len(out.Taken) != 1 || out.Taken[0] != hi {
		t.Errorf("hold of both by another order: %+v %v, want only 2^60+1 taken", out, err)
	}
	if out, err := e.Seats.Hold(ctx, show, "DUP", user+2, 4, []seats.SeatRef{{ID: lo, Zone: "standard"}, {ID: lo, Zone: "standard"}}); services.ErrorCode(err) != services.CodeInvalidRequest {
		t.Errorf("a seat twice in one hold: %+v %v, want INVALID_REQUEST", out, err)
	}
	conflicts, err := e.Seats.Sell(ctx, show, "BIGORDER", user, []seats.SeatRef{{ID: hi, Zone: "standard"}})
	if err != nil || len(conflicts) != 0 {
		t.Errorf("sell: %v %v", conflicts, err)
	}
	if v := e.RDB.HGet(ctx, keys[0], his).Val(); v != "S|BIGORDER|"+users {
		t.Errorf("seat 2^60+1 is %q after the sale", v)
	}
	if n, err := e.Seats.Release(ctx, show, "BIGORDER", []seats.SeatRef{{ID: lo, Zone: "standard"}}, true); n != 0 || err != nil {
		t.Errorf("releasing 2^60 for the owner of 2^60+1: %d %v", n, err)
	}
	if n, err := e.Seats.Release(ctx, show, "BIGORDER", []seats.SeatRef{{ID: hi, Zone: "standard"}}, true); n != 1 || err != nil {
		t.Errorf("release of 2^60+1: %d %v", n, err)
	}
	if v := e.RDB.HGet(ctx, keys[0], his).Val(); v != "F" {
		t.Errorf("seat 2^60+1 is %q after release", v)
	}
	if z, u := e.RDB.HGet(ctx, keys[1], "standard").Val(), e.RDB.HGet(ctx, keys[2], users).Val(); z != "2" || u != "0" {
		t.Errorf("counters after release: zone %s, user %s", z, u)
	}
}
