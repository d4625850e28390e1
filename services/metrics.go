package services

import "github.com/prometheus/client_golang/prometheus"

// Metrics are seatflow's Prometheus collectors. Register them once per process with
// Register; services count through them.
type Metrics struct {
	OrdersCreated       prometheus.Counter
	OrdersPaid          prometheus.Counter
	OrdersCancelled     prometheus.Counter
	OrdersExpired       prometheus.Counter
	HoldConflicts       prometheus.Counter
	RateLimited         *prometheus.CounterVec // label scope: user, show, login
	CreateLatency       prometheus.Histogram   // seconds, create-order requests that got an answer
	CommitBatchSize     prometheus.Histogram   // orders per committed group-commit transaction
	CommitBatchRetries  *prometheus.CounterVec // label cause: refused (run again without refused orders), conflict (orders committed one by one)
	PaymentsLate        prometheus.Counter
	ExpiryEnqueueErrors prometheus.Counter
	ExpiryCancelErrors  prometheus.Counter
	OrdersRefunded      prometheus.Counter
	RefundErrors        prometheus.Counter // provider refunds that failed (to be refunded by hand)

	ReconcileRuns      *prometheus.CounterVec // labels trigger (manual, cron, cli), result (done, failed, skipped, lease_lost)
	ReconcileFindings  *prometheus.CounterVec // label kind (Finding* constants), fixed (true, false)
	ReconcileDuration  prometheus.Histogram   // seconds per run
	ReconcileLeaseLost prometheus.Counter
	SeatSyncs          *prometheus.CounterVec // label result: queued, done, failed, lost

	// The waiting rooms (API.md "Waiting room"). RoomWaiting is read from Redis by
	// every instance's room ticker: each reports the same value, take the max.
	RoomWaiting       *prometheus.GaugeVec   // label show_id: buyers waiting (the rooms that are on)
	RoomAdmitted      prometheus.Counter     // buyers admitted (by this instance's admissions)
	RoomAbandoned     prometheus.Counter     // waiting places expired at the front, unread for 120 s
	RoomTokenRefusals *prometheus.CounterVec // label reason: missing, invalid, expired, other (user or show), epoch (before the room was last turned on)
	RoomWait          prometheus.Histogram   // seconds from joining (or the opening) to admission
}

// NewMetrics builds the collectors (not yet registered).
func NewMetrics() *Metrics {
	c := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: "seatflow_" + name, Help: help})
	}
	return &Metrics{
		OrdersCreated:       c("orders_created_total", "Orders created (pending)."),
		OrdersPaid:          c("orders_paid_total", "Orders paid."),
		OrdersCancelled:     c("orders_cancelled_total", "Orders cancelled by their buyer."),
		OrdersExpired:       c("orders_expired_total", "Orders expired at their payment deadline."),
		HoldConflicts:       c("hold_conflicts_total", "Order attempts refused because a seat was taken."),
		PaymentsLate:        c("payments_refunded_late_total", "Payments that arrived after their order ended and were refunded."),
		ExpiryEnqueueErrors: c("expiry_enqueue_errors_total", "Expiry tasks that could not be enqueued (reconciliation catches them)."),
		ExpiryCancelErrors:  c("expiry_cancel_errors_total", "Expiry tasks of paid or cancelled orders that could not be deleted (harmless: the task finds the order settled)."),
		ReconcileLeaseLost:  c("reconcile_lease_lost_total", "Reconciliation runs that lost their lease and stopped writing."),
		OrdersRefunded:      c("orders_refunded_total", "Paid orders refunded by staff (also when their show was cancelled)."),
		RefundErrors:        c("refund_errors_total", "Refunds the payment provider refused or could not be reached for (to be refunded by hand)."),
		ReconcileRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seatflow_reconcile_runs_total", Help: "Reconciliation runs by trigger and result.",
		}, []string{"trigger", "result"}),
		ReconcileFindings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seatflow_reconcile_findings_total", Help: "Drift found by reconciliation, by kind and whether it was fixed.",
		}, []string{"kind", "fixed"}),
		ReconcileDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "seatflow_reconcile_run_seconds", Help: "Duration of reconciliation runs in seconds.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}),
		SeatSyncs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seatflow_seat_syncs_total", Help: "Post-commit seat cache steps retried from the outbox: queued, done, failed (retried later), lost (not queued; reconciliation repairs).",
		}, []string{"result"}),
		RateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seatflow_rate_limited_total", Help: "Requests refused by a rate limit.",
		}, []string{"scope"}),
		CommitBatchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "seatflow_order_commit_batch_orders", Help: "Orders committed per group-commit transaction.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128},
		}),
		CommitBatchRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seatflow_order_commit_batch_retries_total", Help: "Group-commit transactions run again: refused (without the orders a commit-time check refused), conflict (order by order after a unique-key conflict).",
		}, []string{"cause"}),
		RoomWaiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "seatflow_waiting_room_waiting", Help: "Buyers waiting in a show's waiting room (every instance reports the same value).",
		}, []string{"show_id"}),
		RoomAdmitted:  c("waiting_room_admitted_total", "Buyers a waiting room admitted."),
		RoomAbandoned: c("waiting_room_abandoned_total", "Waiting places that expired at the front of the queue, unread for 120 s."),
		RoomTokenRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seatflow_waiting_room_token_refusals_total", Help: "Order creations refused 403 NOT_ADMITTED, by reason.",
		}, []string{"reason"}),
		RoomWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "seatflow_waiting_room_wait_seconds", Help: "Seconds from joining a waiting room (or its opening) to admission.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600},
		}),
		CreateLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "seatflow_create_order_seconds", Help: "Latency of create-order requests in seconds.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}),
	}
}

// Register registers every collector with reg.
func (m *Metrics) Register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.OrdersCreated, m.OrdersPaid, m.OrdersCancelled, m.OrdersExpired,
		m.HoldConflicts, m.RateLimited, m.CreateLatency, m.CommitBatchSize, m.CommitBatchRetries, m.PaymentsLate, m.ExpiryEnqueueErrors, m.ExpiryCancelErrors,
		m.ReconcileRuns, m.ReconcileFindings, m.ReconcileDuration, m.ReconcileLeaseLost, m.SeatSyncs, m.OrdersRefunded, m.RefundErrors,
		m.RoomWaiting, m.RoomAdmitted, m.RoomAbandoned, m.RoomTokenRefusals, m.RoomWait} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
