package orders_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"seatflow/services"
	"seatflow/services/internal/testenv"
)

// failingExpiry schedules fine but can never delete a task (as when it is running).
type failingExpiry struct{}

func (failingExpiry) ScheduleExpiries(context.Context, time.Time, []string) error { return nil }
func (failingExpiry) CancelExpiry(context.Context, string) error {
	return errors.New("task is running")
}

// Paying or cancelling deletes the order's expiry task; a failure to delete is harmless
// (the order is settled either way) but counted.
func TestExpiryTaskDeleteFailureIsHarmlessButCounted(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	e.Orders.SetExpiry(failingExpiry{})
	ctx := context.Background()
	a, err := e.Create(e.User(1), e.SeatIDs("A1")...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Create(e.User(2), e.SeatIDs("A2")...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Orders.Cancel(ctx, a.UserID, a.OrderNo); err != nil {
		t.Fatalf("cancel with an undeletable task: %v", err)
	}
	e.Pay(b)
	if got := counterValue(t, e.Orders.Metrics().ExpiryCancelErrors); got != 2 {
		t.Errorf("expiry_cancel_errors_total = %v, want 2", got)
	}
	if e.OrderStatus(a.OrderNo) != services.OrderCancelled || e.OrderStatus(b.OrderNo) != services.OrderPaid {
		t.Errorf("orders are %s and %s", e.OrderStatus(a.OrderNo), e.OrderStatus(b.OrderNo))
	}
	e.CheckInvariants()
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
