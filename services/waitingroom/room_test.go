package waitingroom_test

import (
	"context"
	"math"
	"sort"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/waitingroom"
)

// fakeShows is a ShowSource of shows made in memory (the room reads nothing else of a
// show), so a test can shuffle hundreds of rooms.
type fakeShows struct {
	mu    sync.Mutex
	shows map[int64]*services.Show
}

func (f *fakeShows) CachedShow(_ context.Context, id int64) (*services.Show, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.shows[id]; ok {
		c := *s
		return &c, nil
	}
	return nil, services.Errorf(services.CodeNotFound, "show %d not found", id)
}

func (f *fakeShows) add(id int64, opens time.Time, pace int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shows[id] = &services.Show{ID: id, Status: services.ShowOnSale, StoredStatus: services.ShowOnSale,
		SaleOpensAt: opens, SaleClosesAt: opens.Add(48 * time.Hour), StartsAt: opens.Add(48 * time.Hour),
		WaitingRoom: true, AdmitPerMinute: pace}
}

// roomEnv is a room service over the real Redis (and the test database the
// environment empties), with shows in memory and the environment's hand-moved clock.
type roomEnv struct {
	*testenv.TestEnv
	shows *fakeShows
	rooms *waitingroom.Rooms
}

func newRoomEnv(t *testing.T) *roomEnv {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	f := &fakeShows{shows: map[int64]*services.Show{}}
	return &roomEnv{TestEnv: e, shows: f, rooms: waitingroom.NewRooms(e.RDB, "sf", f, e.Clock, waitingroom.NewTokens([]byte("k"), nil), nil)}
}

func (r *roomEnv) join(t *testing.T, show, user int64) *waitingroom.Entry {
	t.Helper()
	e, err := r.rooms.Join(context.Background(), show, user)
	if err != nil {
		t.Fatalf("join show %d user %d: %v", show, user, err)
	}
	return e
}

func (r *roomEnv) read(t *testing.T, show, user int64) *waitingroom.Entry {
	t.Helper()
	e, err := r.rooms.Read(context.Background(), show, user)
	if err != nil {
		t.Fatalf("read show %d user %d: %v", show, user, err)
	}
	return e
}

// TestWaitingRoom_PreOpeningShuffleIsUniformThenJoinOrder: 300 buyers join before the
// sale opens and 300 after. Before the opening nobody has a position; at the opening
// the early 300 get positions 1..300 in an order uncorrelated with their arrival
// (Spearman's rho within 4 standard errors of 0), and the later 300 follow in exactly
// the order they joined.
func TestWaitingRoom_PreOpeningShuffleIsUniformThenJoinOrder(t *testing.T) {
	r := newRoomEnv(t)
	opens := r.Clock.Now().Add(10 * time.Minute)
	r.shows.add(1, opens, 60)
	const n = 300
	for u := int64(1); u <= n; u++ {
		if e := r.join(t, 1, u); e.Status != waitingroom.StatusWaiting || e.Position != 0 || e.Opened {
			t.Fatalf("user %d before the opening: %+v, want waiting without a position", u, e)
		}
		r.Clock.Advance(time.Second)
	}
	r.Clock.Advance(opens.Sub(r.Clock.Now())) // exactly the opening: no admission credit yet
	for u := int64(n + 1); u <= 2*n; u++ {
		if e := r.join(t, 1, u); e.Position != int(u) {
			t.Fatalf("user %d joined %d-th after the opening: position %d, want %d", u, u-n, e.Position, u)
		}
	}
	pos := make([]float64, n)
	seen := map[int]bool{}
	for u := int64(1); u <= n; u++ {
		e := r.read(t, 1, u)
		if e.Position < 1 || e.Position > n || seen[e.Position] {
			t.Fatalf("user %d: position %d is not a fresh place in 1..%d", u, e.Position, n)
		}
		seen[e.Position] = true
		pos[u-1] = float64(e.Position)
		if e.FirstPosition != e.Position {
			t.Errorf("user %d: first position %d, position %d", u, e.FirstPosition, e.Position)
		}
	}
	// Spearman's rho of arrival rank and position (both permutations of 1..n)
	var d2 float64
	for i, p := range pos {
		d2 += (float64(i+1) - p) * (float64(i+1) - p)
	}
	rho := 1 - 6*d2/(n*(n*n-1))
	if limit := 4 / math.Sqrt(n-1); math.Abs(rho) > limit {
		t.Errorf("positions correlate with arrival: rho %.3f, beyond ±%.3f", rho, limit)
	}
	t.Logf("rho of arrival and position: %.3f (chance: ±%.3f)", rho, 4/math.Sqrt(n-1))
}

// TestWaitingRoom_ShuffleIsUniformAcrossRooms: in 600 rooms of 5 early buyers each, the
// first to arrive lands on each of the 5 places about equally often (chi-square, 4
// degrees of freedom, below 18.47: p < 0.001 would fail). A seed reused across rooms, or
// a biased draw, fails it.
func TestWaitingRoom_ShuffleIsUniformAcrossRooms(t *testing.T) {
	r := newRoomEnv(t)
	opens := r.Clock.Now().Add(time.Minute)
	const rooms, k = 600, 5
	for s := int64(1); s <= rooms; s++ {
		r.shows.add(s, opens, 1)
		for u := int64(1); u <= k; u++ {
			r.join(t, s, u)
		}
	}
	r.Clock.Advance(time.Minute)
	counts := make([]float64, k)
	for s := int64(1); s <= rooms; s++ {
		counts[r.read(t, s, 1).Position-1]++
	}
	var chi float64
	for _, c := range counts {
		exp := float64(rooms) / k
		chi += (c - exp) * (c - exp) / exp
	}
	if chi > 18.47 {
		t.Errorf("the first arrival's places %v are not uniform: chi-square %.1f > 18.47", counts, chi)
	}
	t.Logf("first arrival's places over %d rooms: %v (chi-square %.1f)", rooms, counts, chi)
}

// TestWaitingRoom_AdmissionFollowsPositionAtThePace: at 600 a minute, each second
// admits the next 10 positions, nobody out of turn, and an admitted buyer gets a token
// for this show valid for 10 minutes.
func TestWaitingRoom_AdmissionFollowsPositionAtThePace(t *testing.T) {
	r := newRoomEnv(t)
	opens := r.Clock.Now()
	r.shows.add(1, opens, 600)
	const n = 50
	for u := int64(1); u <= n; u++ {
		r.join(t, 1, u)
	}
	for sec := 1; sec <= n/10; sec++ {
		r.Clock.Advance(time.Second)
		if _, err := r.rooms.Advance(context.Background(), mustShow(t, r, 1)); err != nil {
			t.Fatal(err)
		}
		for u := int64(1); u <= n; u++ {
			e := r.read(t, 1, u)
			want := waitingroom.StatusWaiting
			if int(u) <= sec*10 {
				want = waitingroom.StatusAdmitted
			}
			if e.Status != want {
				t.Fatalf("after %d s user %d (joined %d-th) is %s, want %s", sec, u, u, e.Status, want)
			}
			if want == waitingroom.StatusWaiting && e.Position != int(u)-sec*10 {
				t.Fatalf("after %d s user %d has position %d, want %d", sec, u, e.Position, int(u)-sec*10)
			}
			if want == waitingroom.StatusAdmitted {
				if e.AdmissionToken == "" || !e.AdmissionExpiresAt.After(r.Clock.Now().Add(9*time.Minute)) {
					t.Fatalf("admitted user %d: token %q until %v", u, e.AdmissionToken, e.AdmissionExpiresAt)
				}
				if err := r.rooms.Tokens().Check(e.AdmissionToken, u, 1, 0, r.Clock.Now()); err != nil {
					t.Fatalf("admitted user %d: own token refused: %v", u, err)
				}
			}
		}
	}
	r.Clock.Advance(waitingroom.AdmittedFor)
	if e := r.read(t, 1, 1); e.Status != waitingroom.StatusExpired {
		t.Errorf("10 minutes after admission: %s, want expired", e.Status)
	}
	if e := r.join(t, 1, 1); e.Status != waitingroom.StatusAdmitted && e.Status != waitingroom.StatusWaiting {
		t.Errorf("joining again after expiry: %s, want a new place", e.Status)
	}
}

func mustShow(t *testing.T, r *roomEnv, id int64) *services.Show {
	t.Helper()
	s, err := r.shows.CachedShow(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWaitingRoom_AbandonedPlaceIsSkipped: a waiting buyer who stops reading for more
// than 120 s is expired when their place reaches the front, costs no admission, and
// the next buyer is admitted in the same step.
func TestWaitingRoom_AbandonedPlaceIsSkipped(t *testing.T) {
	r := newRoomEnv(t)
	r.shows.add(1, r.Clock.Now(), 1) // one a minute
	for u := int64(1); u <= 3; u++ {
		r.join(t, 1, u)
	}
	r.Clock.Advance(time.Minute)
	if e := r.read(t, 1, 1); e.Status != waitingroom.StatusAdmitted {
		t.Fatalf("first buyer after a minute: %s", e.Status)
	}
	r.Clock.Advance(30 * time.Second)
	r.read(t, 1, 3) // buyer 3 keeps reading, buyer 2 went silent at joining
	r.Clock.Advance(60 * time.Second)
	e3 := r.read(t, 1, 3)
	e2 := r.read(t, 1, 2)
	if e2.Status != waitingroom.StatusExpired || e3.Status != waitingroom.StatusAdmitted {
		t.Fatalf("silent buyer 2: %s (want expired); reading buyer 3: %s (want admitted)", e2.Status, e3.Status)
	}
	st, err := r.rooms.Stats(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.AbandonedTotal != 1 || st.AdmittedTotal != 2 || st.Waiting != 0 {
		t.Errorf("stats %+v, want 2 admitted, 1 abandoned, 0 waiting", st)
	}
}

// TestWaitingRoom_EstimateNeverPromisesWhatThePaceCannotKeep: 120 buyers join at 120 a
// minute while the room admits; each one's estimate at joining is compared with when
// they were admitted, with the room advanced every second (the tickers) or only every
// 3 s (a busy Redis). Nobody waits longer than their estimate's upper end, and 90 % are
// admitted within their range.
func TestWaitingRoom_EstimateNeverPromisesWhatThePaceCannotKeep(t *testing.T) {
	for _, every := range []time.Duration{time.Second, 3 * time.Second} {
		t.Run("advanced every "+every.String(), func(t *testing.T) {
			r := newRoomEnv(t)
			r.shows.add(1, r.Clock.Now(), 120)
			const n = 120
			est := map[int64]waitingroom.Estimate{}
			joined := map[int64]time.Time{}
			admittedAt := map[int64]time.Time{}
			step := func(upTo int64) { // the tickers' advance, then every buyer's read
				r.Clock.Advance(every)
				r.rooms.Advance(context.Background(), mustShow(t, r, 1))
				for u := int64(1); u <= upTo; u++ {
					if _, done := admittedAt[u]; !done && r.read(t, 1, u).Status == waitingroom.StatusAdmitted {
						admittedAt[u] = r.Clock.Now()
					}
				}
			}
			perStep := int64(4 * every / time.Second) // 4 arrivals a second
			for u := int64(1); u <= n; u++ {
				e := r.join(t, 1, u)
				est[u], joined[u] = e.Wait, r.Clock.Now()
				if e.Status == waitingroom.StatusAdmitted {
					admittedAt[u] = r.Clock.Now()
				}
				if u%perStep == 0 {
					step(u)
				}
			}
			for i := 0; len(admittedAt) < n && i < 600; i++ {
				step(n)
			}
			var within int
			var errs []float64
			for u := int64(1); u <= n; u++ {
				at, ok := admittedAt[u]
				if !ok {
					t.Fatalf("user %d never admitted", u)
				}
				waited, e := int(at.Sub(joined[u]).Seconds()), est[u]
				if e.High > 0 && waited > e.High {
					t.Errorf("user %d waited %d s, estimate promised at most %d s (%+v)", u, waited, e.High, e)
				}
				if e.High == 0 || waited >= e.Low && waited <= e.High {
					within++
				}
				if e.High > 0 {
					errs = append(errs, float64(waited-e.Seconds))
				}
			}
			sort.Float64s(errs)
			if within < n*9/10 {
				t.Errorf("only %d of %d waits within their estimated range", within, n)
			}
			t.Logf("%d of %d admitted within their range; actual minus estimate over %d estimates: median %.0f s, range %.0f..%.0f s",
				within, n, len(errs), errs[len(errs)/2], errs[0], errs[len(errs)-1])
		})
	}
}

// TestWaitingRoom_OneEntryPerBuyer: a second tab (or a retry) joining again gets the
// same place, and so does a read.
func TestWaitingRoom_OneEntryPerBuyer(t *testing.T) {
	r := newRoomEnv(t)
	r.shows.add(1, r.Clock.Now(), 1)
	r.join(t, 1, 7)
	a := r.join(t, 1, 8)
	b := r.join(t, 1, 8)
	c := r.read(t, 1, 8)
	if a.QueueID != b.QueueID || a.Position != b.Position || c.QueueID != a.QueueID || a.Position != 2 {
		t.Errorf("second join or read moved the place: %+v / %+v / %+v", a, b, c)
	}
	if st, _ := r.rooms.Stats(context.Background(), 1); st.Waiting != 2 {
		t.Errorf("waiting %d, want 2", st.Waiting)
	}
	if _, err := r.rooms.Read(context.Background(), 1, 99); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("reading without an entry: %v, want NOT_FOUND", err)
	}
}

// TestWaitingRoom_TwoInstancesShareOnePace: two instances (their own service objects,
// clocks 700 ms apart) advance one room every 100 ms for 20 s at 60 a minute: together
// they admit 20 (±1), not 40, and in position order.
func TestWaitingRoom_TwoInstancesShareOnePace(t *testing.T) {
	r := newRoomEnv(t)
	start := r.Clock.Now()
	r.shows.add(1, start, 60)
	skewed := &offset{base: r.Clock, by: 700 * time.Millisecond}
	other := waitingroom.NewRooms(r.RDB, "sf", r.shows, skewed, waitingroom.NewTokens([]byte("k"), nil), nil)
	for u := int64(1); u <= 100; u++ {
		r.join(t, 1, u)
	}
	show := mustShow(t, r, 1)
	for i := 0; i < 200; i++ {
		r.Clock.Advance(100 * time.Millisecond)
		r.rooms.Advance(context.Background(), show)
		other.Advance(context.Background(), show)
		if i%100 == 0 { // keep everyone's place alive
			for u := int64(1); u <= 100; u++ {
				r.read(t, 1, u)
			}
		}
	}
	st, err := r.rooms.Stats(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.AdmittedTotal < 19 || st.AdmittedTotal > 22 {
		t.Errorf("two instances admitted %d in 20 s at 60 a minute, want about 20", st.AdmittedTotal)
	}
	for u := int64(1); u <= 100; u++ {
		if e := r.read(t, 1, u); (e.Status == waitingroom.StatusAdmitted) != (int(u) <= st.AdmittedTotal) {
			t.Errorf("user %d is %s with %d admitted: out of turn", u, e.Status, st.AdmittedTotal)
		}
	}
}

type offset struct {
	base services.Clock
	by   time.Duration
}

func (o *offset) Now() time.Time { return o.base.Now().Add(o.by) }

// TestWaitingRoom_OpeningMovedLater: staff move a sale's opening into the future after
// its room took a buyer (or an instance still has the old opening cached): those who
// join before the new opening wait without a position and are drawn, once each, into
// the queue at the new opening.
func TestWaitingRoom_OpeningMovedLater(t *testing.T) {
	r := newRoomEnv(t)
	r.shows.add(1, r.Clock.Now().Add(-time.Hour), 1)
	if e := r.join(t, 1, 1); e.Status != waitingroom.StatusAdmitted {
		t.Fatalf("first buyer of a room open for an hour: %+v", e)
	}
	r.shows.add(1, r.Clock.Now().Add(10*time.Minute), 1)
	for u := int64(2); u <= 4; u++ {
		if e := r.join(t, 1, u); e.Position != 0 || e.Opened {
			t.Fatalf("user %d before the new opening: %+v", u, e)
		}
	}
	for i := 0; i < 10; i++ { // they keep their places alive until the opening
		r.Clock.Advance(time.Minute)
		for u := int64(2); u <= 4; u++ {
			r.read(t, 1, u)
		}
	}
	places := map[int]bool{}
	for u := int64(2); u <= 4; u++ {
		e := r.read(t, 1, u)
		if e.Status != waitingroom.StatusWaiting && e.Status != waitingroom.StatusAdmitted {
			t.Errorf("user %d after the new opening: %s", u, e.Status)
		}
		places[e.FirstPosition] = true
	}
	if len(places) != 3 || !places[1] || !places[2] || !places[3] {
		t.Errorf("places drawn at the new opening %v, want 1, 2 and 3 once each", places)
	}
}
