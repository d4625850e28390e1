package orders

import (
	"sync"
	"sync/atomic"
	"time"

	"seatflow/services"
)

// GroupCommit sizes the group commit of created orders (DESIGN.md, order pipeline step
// 6): creates whose Redis hold succeeded are gathered into batches, and each batch is
// one MySQL transaction with multi-row INSERTs (persistBatch).
//
// Batches form by themselves: while InFlight batches are being committed, the creates
// that arrive queue up, and the next batch takes all of them (at most MaxOrders), as
// MariaDB's own group commit gathers the transactions that wait for a flush. A server
// with nothing in flight commits an order at once. MaxWait lets a batch wait a little
// longer for creates that are already between their hold and their commit (never when
// none are): up to MaxWait, or until MaxOrders are gathered, whichever comes first.
type GroupCommit struct {
	MaxOrders int           // orders in one transaction at most (default 64; 1 commits order by order)
	MaxWait   time.Duration // how long a batch waits for creates already holding (default 0: none)
	InFlight  int           // batches committing at once (default 2)
}

func (g GroupCommit) withDefaults() GroupCommit {
	if g.MaxOrders <= 0 {
		g.MaxOrders = 64
	}
	if g.InFlight <= 0 {
		g.InFlight = 2
	}
	if g.MaxWait < 0 {
		g.MaxWait = 0
	}
	return g
}

// pendingCommit is one create waiting for its batch's commit: what persistBatch needs,
// and done, which receives the order's outcome once (nil: committed).
type pendingCommit struct {
	order  *services.Order
	show   *services.Show // as the create read it (the show cache): its e-mail's show facts
	hallID int64
	limit  int       // the show's purchase limit
	claim  *keyClaim // the key's lock this create holds (nil: none), kept by the batch that commits it
	offer  bool      // a waiting list's offer: its e-mail is the offer's, not order_created
	email  string    // the buyer's address and e-mail language from the request ("": read from users)
	lang   string
	done   chan error
}

// groupCommit is the queue of creates waiting for a batch, and its leaders: a leader is
// a goroutine that gathers one batch, commits it, and goes on while creates wait and no
// other leader gathers. No goroutine runs while nothing is queued.
type groupCommit struct {
	cfg     GroupCommit
	commit  func(batch []*pendingCommit) // persistBatches
	holding atomic.Int64                 // creates between the start of their hold and submit
	arrived chan struct{}                // a create was queued (capacity 1: a wake-up, not a count)

	mu        sync.Mutex
	queue     []*pendingCommit
	leaders   int  // gathering or committing
	gathering bool // one leader at a time gathers
}

func newGroupCommit(cfg GroupCommit, commit func([]*pendingCommit)) *groupCommit {
	return &groupCommit{cfg: cfg.withDefaults(), commit: commit, arrived: make(chan struct{}, 1)}
}

// submit queues p and waits for its batch's outcome. It never gives up on a queued
// create (the batch's transaction is bounded by store.DBTimeout): the outcome is the
// order's truth, and a caller that left early would release holds of a committed order.
// held is the create's count as holding: it ends once p is queued, under the lock, so
// a gathering leader that sees no create holding sees every one of them queued.
func (g *groupCommit) submit(p *pendingCommit, held *holdCount) error {
	p.done = make(chan error, 1)
	g.mu.Lock()
	g.queue = append(g.queue, p)
	held.stop()
	lead := !g.gathering && g.leaders < g.cfg.InFlight
	if lead {
		g.leaders++
		g.gathering = true
	}
	g.mu.Unlock()
	select {
	case g.arrived <- struct{}{}:
	default:
	}
	if lead {
		// the hop to the leader: from here this create's commit runs on the leader's
		// goroutine (lead → gather → commit, which is persistBatches), possibly in a
		// batch with other creates; this goroutine only waits for the outcome
		go g.lead()
	}
	return <-p.done
}

// lead gathers and commits batches until nothing is queued, or another leader gathers.
func (g *groupCommit) lead() {
	for {
		batch := g.gather()
		g.commit(batch)
		g.mu.Lock()
		if g.gathering || len(g.queue) == 0 {
			g.leaders--
			g.mu.Unlock()
			return
		}
		g.gathering = true
		g.mu.Unlock()
	}
}

// gather takes the next batch off the queue (the caller is the gathering leader, and
// something is queued). It waits for more while the batch is not full, creates are
// still between their hold and their commit, and MaxWait has not passed. After taking
// the batch it hands gathering to a new leader when creates are still queued and fewer
// than InFlight batches are under way.
func (g *groupCommit) gather() []*pendingCommit {
	var timer *time.Timer
	waited := false
	for {
		g.mu.Lock()
		n := len(g.queue)
		if n >= g.cfg.MaxOrders || g.cfg.MaxWait == 0 || g.holding.Load() == 0 || waited {
			take := min(n, g.cfg.MaxOrders)
			batch := make([]*pendingCommit, take)
			copy(batch, g.queue)
			g.queue = append(g.queue[:0], g.queue[take:]...)
			next := len(g.queue) > 0 && g.leaders < g.cfg.InFlight
			if next {
				g.leaders++
			} else {
				g.gathering = false
			}
			g.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			if next {
				go g.lead()
			}
			return batch
		}
		g.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(g.cfg.MaxWait)
		}
		select {
		case <-g.arrived:
		case <-timer.C:
			waited = true
		}
	}
}

// holdCount counts one create as between the start of its hold and its submit while it
// is not stopped (a batch gathering may wait for it; GroupCommit.MaxWait).
type holdCount struct {
	g       *groupCommit
	stopped bool
}

// startHold counts a create as holding; nil-safe (no group commit: nothing to count).
func (g *groupCommit) startHold() holdCount {
	if g == nil {
		return holdCount{stopped: true}
	}
	g.holding.Add(1)
	return holdCount{g: g}
}

// stop ends the count (once; later calls do nothing).
func (h *holdCount) stop() {
	if !h.stopped {
		h.stopped = true
		h.g.holding.Add(-1)
	}
}
