package waitingroom_test

import (
	"strconv"
	"strings"
	"testing"

	"seatflow/services/internal/testenv"
)

// TestInvariant9_RoomKeysShareTheShowsSlot: every key the room's script touches is in
// the show's hash slot (the slot of its seat map), and user ids above 2^53 (one double)
// are two buyers with two places.
func TestInvariant9_RoomKeysShareTheShowsSlot(t *testing.T) {
	r := newRoomEnv(t)
	for _, show := range []int64{1, 42, 1 << 40, 1<<62 + 7} {
		want := testenv.ClusterSlot(r.Seats.Keys(show)[0])
		for _, k := range r.rooms.Keys(show) {
			if got := testenv.ClusterSlot(k); got != want || !strings.Contains(k, "{show:"+strconv.FormatInt(show, 10)+"}") {
				t.Errorf("show %d: room key %s in slot %d, the seat map in %d", show, k, got, want)
			}
		}
	}
	r.shows.add(5, r.Clock.Now(), 1)
	lo, hi := int64(1<<60), int64(1<<60+1)
	a, b := r.join(t, 5, lo), r.join(t, 5, hi)
	if a.QueueID == b.QueueID || b.Position != 1 && b.Position != 2 || a.Position == b.Position {
		t.Errorf("users 2^60 and 2^60+1 share a place: %+v %+v", a, b)
	}
}
