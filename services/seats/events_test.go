package seats

import (
	"io"
	"log/slog"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"seatflow/services"
)

// TestParseSeatChange reads what lua/notify.lua publishes, and skips what it cannot.
func TestParseSeatChange(t *testing.T) {
	cases := []struct {
		name, channel, payload string
		want                   SeatChange
		ok                     bool
	}{
		{"hold", "sf:{show:42}:changes", "7=H,8=H|standard=10,premium=0",
			SeatChange{ShowID: 42, Seats: map[int64]string{7: services.StateHeld, 8: services.StateHeld}, ZoneFree: map[string]int{"standard": 10, "premium": 0}}, true},
		{"every state", "x:{show:3}:changes", "1=F,2=S,3=B|",
			SeatChange{ShowID: 3, Seats: map[int64]string{1: services.StateFree, 2: services.StateSold, 3: services.StateBlocked}, ZoneFree: map[string]int{}}, true},
		{"reload", "sf:{show:9}:changes", "reload", SeatChange{ShowID: 9, Reload: true}, true},
		{"junk parts skipped", "sf:{show:5}:changes", "a=H,6=Q,7=S|z=x,y=2",
			SeatChange{ShowID: 5, Seats: map[int64]string{7: services.StateSold}, ZoneFree: map[string]int{"y": 2}}, true},
		{"no show", "sf:changes", "1=H|", SeatChange{}, false},
		{"bad show", "sf:{show:x}:changes", "1=H|", SeatChange{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseSeatChange(tc.channel, tc.payload)
			if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestSeatEvents_FollowRenewsOncePerHalfFollow: a show's follow is renewed under the
// lock when it starts and again once half of FollowFor has passed since; in between
// Follow changes nothing (the seat-map read path takes no lock). A follow that ran out
// is dropped and starts afresh at the next Follow. No Redis: before Run, Follow only
// records the follow (Run subscribes to what was followed).
func TestSeatEvents_FollowRenewsOncePerHalfFollow(t *testing.T) {
	e := NewSeatEvents(nil, "sf", 10, slog.New(slog.NewTextHandler(io.Discard, nil)))
	until := func() time.Time {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.followed[7]
	}
	before := time.Now()
	e.Follow(7)
	first := until()
	if first.Before(before.Add(FollowFor)) || first.After(time.Now().Add(FollowFor)) {
		t.Fatalf("followed until %v, want FollowFor (%v) after the Follow at %v", first, FollowFor, before)
	}
	e.Follow(7)
	if got := until(); !got.Equal(first) {
		t.Fatalf("a Follow within the first half renewed the follow: until %v, want %v", got, first)
	}

	// half of FollowFor passed: the next Follow renews
	v, _ := e.renewAt.Load(int64(7))
	if at := time.Unix(0, v.(*atomic.Int64).Load()); at.Before(first.Add(-FollowFor/2)) || at.After(first) {
		t.Fatalf("renewal due at %v, want half of FollowFor before the follow runs out (%v)", at, first)
	}
	v.(*atomic.Int64).Store(time.Now().Add(-time.Millisecond).UnixNano())
	e.Follow(7)
	if got := until(); !got.After(first) {
		t.Fatalf("a Follow after the renewal time did not renew: until %v, was %v", got, first)
	}

	// the follow ran out: dropped, then a Follow starts it again
	out := until().Add(time.Millisecond)
	e.mu.Lock()
	e.unsubscribeIdleLocked(7, out)
	_, kept := e.followed[7]
	e.mu.Unlock()
	if _, ok := e.renewAt.Load(int64(7)); kept || ok {
		t.Fatalf("a follow that ran out is kept (followed %v, renewal time %v)", kept, ok)
	}
	e.Follow(7)
	if until().IsZero() {
		t.Fatal("a Follow after the follow ran out did not start it again")
	}
}
