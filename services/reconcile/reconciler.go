package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// Reconciliation triggers (API.md: the run report's "trigger").
const (
	TriggerManual = "manual" // an admin, from the console or the admin API
	TriggerCron   = "cron"   // the schedule, including the run at start-up
	TriggerCLI    = "cli"    // seatflow reconcile
)

// ExpiryTasks finds and re-creates lost expiry tasks (asynq in production).
type ExpiryTasks interface {
	// EnsureExpiry schedules the order's expiry at at unless it has a task; it reports
	// whether it created one.
	EnsureExpiry(ctx context.Context, orderNo string, at time.Time) (bool, error)
	// ExpiryCovered reports which of the orders an expiry task names: its own, or its
	// batch's task (one task expires a committed batch's orders of one deadline).
	ExpiryCovered(ctx context.Context, orderNos []string) (map[string]bool, error)
}

// ReconcileConfig tunes a Reconciler. Grace is how old a hold without a live order must
// be (by the creation time its order number encodes) before it is released, so a create
// transaction in flight is never touched (default 60 s). ExpirySlack is how far past its
// deadline a pending order must be before reconciliation expires it, leaving the expiry
// task the first go (default 5 s). Lease makes runs exclusive across instances.
// Instances, when set, is the registry of live instances: a young hold whose order MySQL
// does not have is released at once when no live instance has a create that old in
// flight (its create ended, or its instance died); without it such a hold waits for the
// grace. A hold whose order MySQL has ended, and a seat MySQL says is sold, are repaired
// at once either way.
type ReconcileConfig struct {
	Grace       time.Duration
	ExpirySlack time.Duration
	Lease       *store.Lease
	Instances   *store.Instances
	Tasks       ExpiryTasks
	Metrics     *services.Metrics
	Logger      *slog.Logger
}

// Reconciler compares the seat cache in Redis with MySQL (the truth) and repairs the
// drift, expires overdue orders and re-creates lost expiry tasks (DESIGN.md,
// Reconciliation; invariant 8). Every run is stored with its findings.
type Reconciler struct {
	db      *sqlx.DB
	catalog *catalog.Catalog
	seats   *seats.SeatStore
	orders  *orders.Orders
	clock   services.Clock
	cfg     ReconcileConfig
	// pause, when set by tests, is called at named points of a run ("show", "repair").
	pause func(stage string)
}

// ErrReconcileBusy is returned when another run holds the lease.
var ErrReconcileBusy = services.Errorf(services.CodeConflict, "another reconciliation run is in progress; try again when it has finished")

// NewReconciler wires reconciliation over the order service's stores.
func NewReconciler(db *sqlx.DB, catalog *catalog.Catalog, seats *seats.SeatStore, orders *orders.Orders, clock services.Clock, cfg ReconcileConfig) *Reconciler {
	if cfg.Grace <= 0 {
		cfg.Grace = 60 * time.Second
	}
	if cfg.ExpirySlack <= 0 {
		cfg.ExpirySlack = 5 * time.Second
	}
	if cfg.Metrics == nil {
		cfg.Metrics = orders.Metrics()
	}
	if cfg.Logger == nil {
		cfg.Logger = orders.Log()
	}
	if cfg.Lease == nil {
		cfg.Lease = store.NewLease(seats.Redis(), seats.Prefix(), "reconcile", 30*time.Second)
	}
	return &Reconciler{db: db, catalog: catalog, seats: seats, orders: orders, clock: clock, cfg: cfg}
}

// SetPauseHook makes a run call hook at named points ("show": before each show is
// compared; "repair": after the comparison, before the repair script); tests use it to
// hold a run while they act.
func (r *Reconciler) SetPauseHook(hook func(stage string)) { r.pause = hook }

// ReconcileOptions says how to run: Trigger (Trigger*), DryRun (report, fix nothing),
// ShowID (0: every show), ActorID (the admin who asked, 0 for none), Wait (how long to
// wait for another run to finish; 0: give up at once with ErrReconcileBusy) and
// Progress (called after each show with shows done and total; may be nil).
type ReconcileOptions struct {
	Trigger  string
	DryRun   bool
	ShowID   int64
	ActorID  int64
	Wait     time.Duration
	Progress func(done, total int)
}

// run is the state of one run in progress.
type run struct {
	*ReconcileRun
	token int64
	lost  atomic.Bool
}

// ErrLeaseLost stops a run whose lease expired or was taken over.
var ErrLeaseLost = errors.New("the reconciliation lease was lost; the run stopped writing")

// Run performs one reconciliation run and returns its report (also stored). A real run
// holds the cluster-wide lease for its whole length; a dry run needs none and writes
// nothing but its report. Errors: ErrReconcileBusy (another run holds the lease after
// Wait), NOT_FOUND (unknown ShowID), UNAVAILABLE; a run that failed half way is stored
// with its error and returned with it.
func (r *Reconciler) Run(ctx context.Context, opts ReconcileOptions) (*ReconcileRun, error) {
	if opts.ShowID != 0 {
		if _, err := r.catalog.Show(ctx, opts.ShowID); err != nil {
			return nil, err
		}
	}
	m := r.cfg.Metrics
	rn := &run{ReconcileRun: &ReconcileRun{Trigger: opts.Trigger, DryRun: opts.DryRun, StartedAt: r.clock.Now()}}
	if opts.ShowID != 0 {
		rn.ShowID = &opts.ShowID
	}
	if opts.ActorID != 0 {
		rn.ActorID = &opts.ActorID
	}
	if !opts.DryRun {
		tok, err := r.acquire(ctx, opts.Wait)
		if err != nil {
			if errors.Is(err, ErrReconcileBusy) {
				m.ReconcileRuns.WithLabelValues(opts.Trigger, "skipped").Inc()
			}
			return nil, err
		}
		rn.token = tok
		stop := r.keepLease(rn)
		defer stop()
	}
	if err := r.insertRun(ctx, rn.ReconcileRun); err != nil {
		return nil, err
	}
	start := time.Now()
	err := r.steps(ctx, rn, opts)
	m.ReconcileDuration.Observe(time.Since(start).Seconds())
	rn.Status = RunDone
	switch {
	case rn.lost.Load() || errors.Is(err, ErrLeaseLost):
		rn.Status, err = RunLeaseLost, ErrLeaseLost
		m.ReconcileLeaseLost.Inc()
	case err != nil:
		rn.Status = RunFailed
	}
	if err != nil {
		rn.Error = err.Error()
	}
	for _, f := range rn.Findings {
		m.ReconcileFindings.WithLabelValues(f.Kind, fmt.Sprint(f.Fixed)).Inc()
	}
	m.ReconcileRuns.WithLabelValues(opts.Trigger, rn.Status).Inc()
	if ferr := r.finishRun(context.WithoutCancel(ctx), rn.ReconcileRun); ferr != nil && err == nil {
		err = ferr
	}
	if len(rn.Findings) > 0 || err != nil {
		r.cfg.Logger.Info("reconciliation run", "run_id", rn.ID, "trigger", rn.Trigger, "dry_run", rn.DryRun,
			"shows", rn.ShowsChecked, "findings", len(rn.Findings), "fixed", rn.Fixed, "status", rn.Status, "err", err)
	}
	return rn.ReconcileRun, err
}

// acquire takes the lease, polling for up to wait while another run holds it.
func (r *Reconciler) acquire(ctx context.Context, wait time.Duration) (int64, error) {
	deadline := time.Now().Add(wait)
	for {
		tok, err := r.cfg.Lease.TryAcquire(ctx)
		if err != nil || tok > 0 {
			return tok, err
		}
		if !time.Now().Before(deadline) {
			return 0, ErrReconcileBusy
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// keepLease renews the run's lease every third of its lifetime until stop is called,
// then gives it back; a failed renewal marks the run lost.
func (r *Reconciler) keepLease(rn *run) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(r.cfg.Lease.TTL() / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				_ = r.cfg.Lease.Release(context.Background(), rn.token)
				return
			case <-t.C:
				if ok, err := r.cfg.Lease.Renew(context.Background(), rn.token); err == nil && !ok {
					rn.lost.Store(true)
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// holding reports errLeaseLost when the run may no longer write.
func (r *Reconciler) holding(ctx context.Context, rn *run) error {
	if rn.DryRun {
		return nil
	}
	if rn.lost.Load() {
		return ErrLeaseLost
	}
	ok, err := r.cfg.Lease.Renew(ctx, rn.token)
	if err != nil {
		return err
	}
	if !ok {
		rn.lost.Store(true)
		return ErrLeaseLost
	}
	return nil
}

// steps runs the three sweeps: overdue orders, seat maps, expiry tasks.
func (r *Reconciler) steps(ctx context.Context, rn *run, opts ReconcileOptions) error {
	if err := r.expireOverdue(ctx, rn, opts.ShowID); err != nil {
		return err
	}
	if err := r.cancelOrdersOfCancelledShows(ctx, rn, opts.ShowID); err != nil {
		return err
	}
	shows, err := r.candidateShows(ctx, opts.ShowID)
	if err != nil {
		return err
	}
	// one show that cannot be reconciled does not stop the others; a store that is down
	// or a lost lease stops the run
	var failed []error
	for i, id := range shows {
		if r.pause != nil {
			r.pause("show")
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.reconcileShow(ctx, rn, id); err != nil {
			err = fmt.Errorf("show %d: %w", id, err)
			if errors.Is(err, ErrLeaseLost) || services.ErrorCode(err) == services.CodeUnavailable || ctx.Err() != nil {
				return err
			}
			r.cfg.Logger.Error("reconciliation could not check a show", "show_id", id, "err", err)
			failed = append(failed, err)
		} else {
			rn.ShowsChecked++
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(shows))
		}
	}
	if err := r.checkExpiryTasks(ctx, rn, opts.ShowID); err != nil {
		return err
	}
	if err := r.checkSeatIdentity(ctx, rn, opts.ShowID); err != nil {
		return err
	}
	return errors.Join(failed...)
}

// add records a finding; its order number and detail are made storable first (a
// corrupt seat value can carry any bytes).
func (rn *run) add(f seats.Finding) {
	f.OrderNo = printableASCII(f.OrderNo, 32)
	f.Detail = validText(f.Detail, 300)
	rn.Findings = append(rn.Findings, f)
	if f.Fixed {
		rn.Fixed++
	}
}

// expireOverdue expires pending orders past their deadline plus the slack, through the
// expiry task's own code path; it reads MySQL only, so it works with every task lost.
func (r *Reconciler) expireOverdue(ctx context.Context, rn *run, showID int64) error {
	const batch, maxBatches = 500, 40
	for b := 0; b < maxBatches; b++ {
		var due []store.ReconcileOrder
		dueBy := r.clock.Now().Add(-r.cfg.ExpirySlack)
		if err := r.readDB(ctx, func(ctx context.Context) (err error) {
			due, err = store.ReconcileOverdueOrders(ctx, r.db, dueBy, showID, batch)
			return err
		}); err != nil {
			return err
		}
		for _, o := range due {
			f := seats.Finding{Kind: seats.FindingOverdueOrder, ShowID: o.ShowID, OrderNo: o.No, Action: seats.ActionExpire,
				Detail: "pending past its payment deadline"}
			if !rn.DryRun {
				if err := r.holding(ctx, rn); err != nil {
					return err
				}
				won, err := r.orders.Expire(ctx, o.No)
				if err != nil {
					return err
				}
				f.Fixed = won
			}
			rn.add(f)
		}
		if len(due) < batch || rn.DryRun {
			return nil
		}
	}
	return nil
}

// cancelOrdersOfCancelledShows cancels pending orders of cancelled shows: an order
// created from a show read just before its cancel would otherwise wait for its deadline
// (it can never be paid, invariant 10).
func (r *Reconciler) cancelOrdersOfCancelledShows(ctx context.Context, rn *run, showID int64) error {
	var left []store.ReconcileOrder
	if err := r.readDB(ctx, func(ctx context.Context) (err error) {
		left, err = store.ReconcilePendingOfCancelledShows(ctx, r.db, showID, 1000)
		return err
	}); err != nil {
		return err
	}
	for _, o := range left {
		f := seats.Finding{Kind: seats.FindingCancelledShow, ShowID: o.ShowID, OrderNo: o.No, Action: seats.ActionCancel,
			Detail: "pending order of a cancelled show"}
		if !rn.DryRun {
			if err := r.holding(ctx, rn); err != nil {
				return err
			}
			order, err := r.orders.ByNo(ctx, o.No)
			if err != nil {
				return err
			}
			if order.Status == services.OrderPending { // ended or paid since the scan: nothing to fix
				msg := mail.ShowCancelledMessage(mail.OutcomeCancelled, "")
				won, err := r.orders.End(ctx, order, orders.Change{To: services.OrderCancelled, Reason: services.ReasonShowCancelled, Mail: &msg})
				if err != nil {
					return err
				}
				f.Fixed = won
			}
		}
		rn.add(f)
	}
	return nil
}

// candidateShows lists the shows to compare: on sale now, with pending orders, or with
// a seat map in Redis (or only showID when it is set); the shows with the latest
// pending orders come first.
func (r *Reconciler) candidateShows(ctx context.Context, showID int64) ([]int64, error) {
	if showID != 0 {
		return []int64{showID}, nil
	}
	var ids []int64
	now := r.clock.Now()
	// the sale window decides whether a show is on sale (Show.StatusAt); draft and
	// cancelled shows sell nothing
	if err := r.readDB(ctx, func(ctx context.Context) (err error) {
		ids, err = store.ReconcileCandidateShows(ctx, r.db, now)
		return err
	}); err != nil {
		return nil, err
	}
	loaded, err := r.seats.LoadedShows(ctx)
	if err != nil {
		return nil, err
	}
	// the shows with the latest pending orders first (after a fault, the shows it
	// touched are repaired first), then the others, then maps loaded for other shows
	sort.Slice(loaded, func(i, j int) bool { return loaded[i] < loaded[j] })
	seen := map[int64]bool{}
	var out []int64
	for _, id := range append(ids, loaded...) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// reconcileShow compares one show's seat cache with MySQL and repairs it: a missing map
// is rebuilt; otherwise the repair script applies the seat repairs as compare-and-sets
// and recomputes the counters. Then the show's voucher uses are compared and rebuilt
// (reconcileVouchers), and its orders' money is checked (checkMoney).
func (r *Reconciler) reconcileShow(ctx context.Context, rn *run, showID int64) error {
	if err := r.reconcileSeats(ctx, rn, showID); err != nil {
		return err
	}
	if err := r.reconcileVouchers(ctx, rn, showID); err != nil {
		return err
	}
	return r.checkMoney(ctx, rn, showID)
}

// reconcileSeats is reconcileShow's seat part.
func (r *Reconciler) reconcileSeats(ctx context.Context, rn *run, showID int64) error {
	cmp, err := r.compare(ctx, showID, r.cfg.Grace)
	if services.ErrorCode(err) == services.CodeNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	if cmp.missingMap {
		return r.rebuild(ctx, rn, showID, cmp.why)
	}
	hall, findings, repairs := cmp.hall, cmp.findings, cmp.repairs
	if rn.DryRun || len(findings) == 0 {
		for _, f := range findings {
			rn.add(f)
		}
		return nil
	}
	if err := r.holding(ctx, rn); err != nil {
		return err
	}
	if r.pause != nil {
		r.pause("repair")
	}
	res, err := r.seats.Repair(ctx, showID, rn.token, repairs, hall)
	if err != nil {
		return err
	}
	switch {
	case res.Fenced:
		rn.lost.Store(true)
		return ErrLeaseLost
	case res.NotLoaded:
		return r.rebuild(ctx, rn, showID, "the seat map vanished during the run")
	}
	for _, f := range findings {
		switch f.Kind {
		case seats.FindingZoneCount, seats.FindingUserCount:
			continue // reported below as the script found them after the seat repairs
		}
		f.Fixed = res.Set[f.SeatID]
		rn.add(f)
	}
	for _, z := range res.Zones {
		now := "now " + z.New
		if z.New == "" {
			now = "removed: the hall has no such zone"
		}
		rn.add(seats.Finding{Kind: seats.FindingZoneCount, ShowID: showID, Action: seats.ActionRecompute, Fixed: true,
			Detail: fmt.Sprintf("zone %s: %s free in the seat cache, %s", z.Name, seats.OrMissing(z.Old), now)})
	}
	for _, u := range res.Users {
		rn.add(seats.Finding{Kind: seats.FindingUserCount, ShowID: showID, Action: seats.ActionRecompute, Fixed: true,
			Detail: fmt.Sprintf("user %s: %s seats in the seat cache, now %s", u.Name, seats.OrMissing(u.Old), u.New)})
	}
	return r.verifyTaken(ctx, showID, hall, repairs, res)
}

// whyNoMap is the missing_map detail of a show whose seat map is simply absent.
const whyNoMap = "no seat map in the seat cache"

// rebuild loads a missing seat map from MySQL. A show that simply was never loaded
// (no live order, no broken key) is loaded without a finding: that is not drift, only
// "not loaded yet" (invariant 3), and it would drown real findings after every start.
func (r *Reconciler) rebuild(ctx context.Context, rn *run, showID int64, why string) error {
	f := seats.Finding{Kind: seats.FindingMissingMap, ShowID: showID, Action: seats.ActionRebuild, Detail: why}
	if why == whyNoMap {
		var live bool
		if err := r.readDB(ctx, func(ctx context.Context) (err error) {
			live, err = store.ShowHasLiveSeats(ctx, r.db, showID)
			return err
		}); err != nil {
			return err
		}
		if !live {
			if rn.DryRun {
				return nil
			}
			if err := r.holding(ctx, rn); err != nil {
				return err
			}
			return r.seats.Load(ctx, showID)
		}
	}
	if !rn.DryRun {
		if err := r.holding(ctx, rn); err != nil {
			return err
		}
		if err := r.seats.Load(ctx, showID); err != nil {
			return err
		}
		f.Fixed = true
	}
	rn.add(f)
	return nil
}

// verifyTaken re-reads the orders whose seats a repair just held or sold: one that
// ended meanwhile (its own release ran before the repair) has them released again,
// owner-checked, so MySQL wins either way.
func (r *Reconciler) verifyTaken(ctx context.Context, showID int64, hall *services.Hall, repairs []seats.SeatRepair, res *seats.RepairResult) error {
	seatsOf := map[string][]int64{}
	for _, rp := range repairs {
		if _, no, _ := seats.SeatValue(rp.To); no != "" && res.Set[rp.SeatID] {
			seatsOf[no] = append(seatsOf[no], rp.SeatID)
		}
	}
	if len(seatsOf) == 0 {
		return nil
	}
	nos := make([]string, 0, len(seatsOf))
	for no := range seatsOf {
		nos = append(nos, no)
	}
	var live []string
	if err := r.readDB(ctx, func(ctx context.Context) (err error) {
		live, err = store.LiveOrderNosAmong(ctx, r.db, nos)
		return err
	}); err != nil {
		return err
	}
	isLive := map[string]bool{}
	for _, no := range live {
		isLive[no] = true
	}
	for no, ids := range seatsOf {
		if isLive[no] {
			continue
		}
		refs := make([]seats.SeatRef, 0, len(ids))
		for _, id := range ids {
			if s, ok := hall.Seat(id); ok {
				refs = append(refs, seats.SeatRef{ID: id, Zone: s.ZoneCode})
			}
		}
		if _, err := r.seats.Release(ctx, showID, no, refs, true); err != nil {
			return err
		}
	}
	return nil
}

// checkExpiryTasks re-creates the expiry task of every pending order older than the
// grace period that no task covers (ExpiryCovered: its own task or its batch's); the
// task it creates expires that order alone.
func (r *Reconciler) checkExpiryTasks(ctx context.Context, rn *run, showID int64) error {
	if r.cfg.Tasks == nil {
		return nil
	}
	now := r.clock.Now()
	var pending []store.ReconcileOrder
	if err := r.readDB(ctx, func(ctx context.Context) (err error) {
		pending, err = store.ReconcilePendingForExpiryTasks(ctx, r.db, now.Add(-r.cfg.ExpirySlack), now.Add(-r.cfg.Grace), showID, 10000)
		return err
	}); err != nil {
		return err
	}
	if len(pending) == 0 {
		return nil
	}
	nos := make([]string, len(pending))
	for i, o := range pending {
		nos[i] = o.No
	}
	covered, err := r.cfg.Tasks.ExpiryCovered(ctx, nos)
	if err != nil {
		return store.Unavailable("the task queue", err)
	}
	for _, o := range pending {
		if covered[o.No] {
			continue
		}
		f := seats.Finding{Kind: seats.FindingMissingExpiryTask, ShowID: o.ShowID, OrderNo: o.No, Action: seats.ActionReschedule,
			Detail: "pending order without an expiry task"}
		if rn.DryRun {
			rn.add(f)
			continue
		}
		if err := r.holding(ctx, rn); err != nil {
			return err
		}
		created, err := r.cfg.Tasks.EnsureExpiry(ctx, o.No, o.ExpiresAt)
		if err != nil {
			return store.Unavailable("the task queue", err)
		}
		if created {
			f.Fixed = true
			rn.add(f)
		}
	}
	return nil
}

// readDB runs one read of MySQL under store.DBTimeout; its error is UNAVAILABLE.
func (r *Reconciler) readDB(ctx context.Context, read func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	if err := read(ctx); err != nil {
		return store.Unavailable("the database", err)
	}
	return nil
}

// comparison is one show's seat cache compared with MySQL.
type comparison struct {
	hall       *services.Hall
	missingMap bool   // the show has no usable seat map: nothing else was compared
	why        string // why the map is not usable
	findings   []seats.Finding
	repairs    []seats.SeatRepair
}

// compare reads a show's seat cache, then MySQL, and compares them with CompareSeatCache.
// The cache is read first: a hold made in between belongs to an order too young to
// touch, and a seat released in between is found not live in MySQL.
func (r *Reconciler) compare(ctx context.Context, showID int64, grace time.Duration) (*comparison, error) {
	show, err := r.catalog.Show(ctx, showID)
	if err != nil {
		return nil, err
	}
	hall, err := r.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	cache, err := r.seats.ReadCache(ctx, showID)
	if err != nil {
		return nil, err
	}
	if cache.WrongType {
		return &comparison{hall: hall, missingMap: true, why: "a key of the seat map is not a hash"}, nil
	}
	if cache.Seats == nil {
		return &comparison{hall: hall, missingMap: true, why: whyNoMap}, nil
	}
	truth, err := r.seats.SnapshotFromDB(ctx, show)
	if err != nil {
		return nil, err
	}
	now := r.clock.Now()
	spare, err := r.spareRule(ctx, truth, cache, now, grace)
	if err != nil {
		return nil, err
	}
	findings, repairs := seats.CompareSeatCache(seats.SeatComparison{ShowID: showID, Truth: truth, Cache: cache,
		ZoneOf: seats.ZoneOf(hall), Now: now, Grace: grace, Spare: spare})
	for i, f := range findings {
		if s, ok := hall.Seat(f.SeatID); ok {
			findings[i].Detail = "seat " + s.Label + ": " + f.Detail
		}
	}
	return &comparison{hall: hall, findings: findings, repairs: repairs}, nil
}

// Inspect compares one show's seat cache with MySQL exactly as a run does and returns
// the findings, writing nothing; grace is the age below which a hold without a live
// order counts as in flight (0 at rest, as the tests' invariant check uses it). A show
// without a seat map gives one missing_map finding. Errors: NOT_FOUND, UNAVAILABLE.
func (r *Reconciler) Inspect(ctx context.Context, showID int64, grace time.Duration) ([]seats.Finding, error) {
	cmp, err := r.compare(ctx, showID, grace)
	if err != nil {
		return nil, err
	}
	if cmp.missingMap {
		return []seats.Finding{{Kind: seats.FindingMissingMap, ShowID: showID, Action: seats.ActionRebuild, Detail: cmp.why}}, nil
	}
	return cmp.findings, nil
}

// proofWait is how long a run waits for every live instance to report its creates in
// flight (a few beats).
const proofWait = 5 * store.InstanceBeat

// spareRule decides which seats the cache gives to an order MySQL does not give them to
// are left alone this run. Only a young hold (its order number younger than grace) may
// be spared, and only while its create may still commit: never when MySQL says the seat
// is sold (a paid order wins whatever holds it), never when MySQL has its order and the
// order ended (final), and not when the instance registry shows no live instance with a
// create that old in flight (its create ended or its instance died). The registry is
// asked after the seat cache was read, and MySQL after the registry, so a create that
// committed in between is seen committed. nil means nothing young is at stake.
func (r *Reconciler) spareRule(ctx context.Context, truth *seats.Snapshot, cache *seats.CacheState, now time.Time,
	grace time.Duration) (func(string, string) bool, error) {
	young := map[string]bool{}
	for id, got := range cache.Seats {
		want := truth.Values[id]
		_, gotNo, _ := seats.SeatValue(got)
		wantState, wantNo, _ := seats.SeatValue(want)
		if gotNo != "" && gotNo != wantNo && wantState != services.StateSold && seats.InFlight(gotNo, now, grace) {
			young[gotNo] = true
		}
	}
	if len(young) == 0 {
		return func(string, string) bool { return false }, nil
	}
	var live *store.Liveness
	if r.cfg.Instances != nil {
		var err error
		if live, err = r.cfg.Instances.Prove(ctx, proofWait); err != nil {
			return nil, err
		}
	}
	nos := make([]string, 0, len(young))
	for no := range young {
		nos = append(nos, no)
	}
	var status map[string]string
	if err := r.readDB(ctx, func(ctx context.Context) (err error) {
		status, err = store.OrderStatusesAmong(ctx, r.db, nos)
		return err
	}); err != nil {
		return nil, err
	}
	return func(no, want string) bool {
		if !young[no] {
			return false
		}
		if wantState, _, _ := seats.SeatValue(want); wantState == services.StateSold {
			return false
		}
		if st, known := status[no]; known {
			// committed after the snapshot: the next run sees it live; ended: final
			return st == services.OrderPending || st == services.OrderPaid
		}
		t, _ := services.OrderNoTime(no)
		return live.MayBeInFlight(t.UnixMilli())
	}, nil
}
