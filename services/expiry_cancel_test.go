package services

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// failingExpiry schedules fine but can never delete a task (as when it is running).
type failingExpiry struct{}

func (failingExpiry) ScheduleExpiry(context.Context, string, time.Time) error { return nil }
func (failingExpiry) CancelExpiry(context.Context, string) error {
	return errors.New("task is running")
}

// Paying or cancelling deletes the order's expiry task; a failure to delete is harmless
// (the order is settled either way) but counted.
func TestExpiryTaskDeleteFailureIsHarmlessButCounted(t *testing.T) {
	e := newTestEnv(t, unlimited)
	e.quietLogs()
	e.orders.SetExpiry(failingExpiry{})
	ctx := context.Background()
	a, err := e.create(e.user(1), e.seatIDs("A1")...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.create(e.user(2), e.seatIDs("A2")...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.orders.Cancel(ctx, a.UserID, a.OrderNo); err != nil {
		t.Fatalf("cancel with an undeletable task: %v", err)
	}
	e.pay(b)
	if got := counterValue(t, e.orders.Metrics().ExpiryCancelErrors); got != 2 {
		t.Errorf("expiry_cancel_errors_total = %v, want 2", got)
	}
	if e.orderStatus(a.OrderNo) != OrderCancelled || e.orderStatus(b.OrderNo) != OrderPaid {
		t.Errorf("orders are %s and %s", e.orderStatus(a.OrderNo), e.orderStatus(b.OrderNo))
	}
	e.checkInvariants()
}

// counterValue reads a Prometheus counter.
func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
