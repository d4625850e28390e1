package store_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// TestUpgrade_RefundedOrdersGetTheirRefunds migrates a database of migration 60 holding a
// refunded order (its payment refunded), a paid one and a cancelled one: the refunded
// order gets one refund at its cancelled_at for all its seats' money, each seat given
// back once; its payment's refunded part is all of it; the others get none.
func TestUpgrade_RefundedOrdersGetTheirRefunds(t *testing.T) {
	ctx := context.Background()
	settings := services.Cinema{Name: "Kino", TimeZone: "Europe/Berlin", Currency: "EUR"}
	db := upgradeDB(t, "_upgrade_refunds", settings, 60)
	at := time.Date(2030, 1, 10, 12, 0, 0, 0, time.UTC)
	refundedAt := at.Add(3 * time.Hour)
	writeOld(t, db, append(oneShowRows(at),
		oldRow{`INSERT INTO orders (id, order_no, user_id, show_id, status, total_minor, currency, created_at, expires_at, paid_at, cancelled_at, cancel_reason)
			VALUES (1, 'SF-REFUNDED', 1, 1, 'refunded', 2100, 'EUR', ?, ?, ?, ?, 'ill'),
			       (2, 'SF-PAID', 1, 1, 'paid', 1000, 'EUR', ?, ?, ?, NULL, NULL),
			       (3, 'SF-CANCELLED', 1, 1, 'cancelled', 1000, 'EUR', ?, ?, NULL, ?, 'cancelled by the buyer')`,
			[]any{at, at.Add(10 * time.Minute), at.Add(time.Minute), refundedAt, at, at.Add(10 * time.Minute), at.Add(time.Minute),
				at, at.Add(10 * time.Minute), at.Add(5 * time.Minute)}},
		oldRow{`INSERT INTO order_seats (order_id, show_id, seat_id, zone_code, price_minor, discount_minor, live) VALUES
			(1, 1, 1, 'standard', 1000, NULL, NULL), (1, 1, 2, 'standard', 1100, NULL, NULL), (2, 1, 3, 'standard', 1000, NULL, 1),
			(3, 1, 1, 'standard', 1000, NULL, NULL)`, nil},
		oldRow{`INSERT INTO payments (payment_id, order_id, provider, amount_minor, currency, status, created_at, updated_at) VALUES
			('pay_r', 1, 'demo', 2100, 'EUR', 'refunded', ?, ?), ('pay_p', 2, 'demo', 1000, 'EUR', 'approved', ?, ?)`, []any{at, refundedAt, at, at}})...)
	if _, err := store.Migrate(ctx, db, settings); err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	for id, want := range map[int64]int{1: 1, 2: 0, 3: 0} {
		refunds, err := store.RefundsOf(ctx, db, id)
		if err != nil || len(refunds) != want {
			t.Fatalf("order %d has refunds %+v (%v), want %d", id, refunds, err, want)
		}
		if want == 0 {
			continue
		}
		r := refunds[0]
		if r.AmountMinor != 2100 || r.Currency != "EUR" || !r.CreatedAt.Equal(refundedAt) || r.ActorID != nil || r.Reason != "ill" {
			t.Errorf("backfilled refund %+v", r)
		}
		seats, err := store.RefundedSeatsOf(ctx, db, id)
		if err != nil || len(seats) != 2 || seats[0].AmountMinor+seats[1].AmountMinor != 2100 || seats[0].RefundID != r.ID {
			t.Errorf("backfilled refund seats %+v (%v)", seats, err)
		}
	}
	var refunded []int64
	if err := db.Select(&refunded, "SELECT refunded_minor FROM payments ORDER BY id"); err != nil || len(refunded) != 2 || refunded[0] != 2100 || refunded[1] != 0 {
		t.Errorf("payments' refunded parts %v (%v), want [2100 0]", refunded, err)
	}
	if bad, err := store.MoneyMismatches(ctx, db, 1); err != nil || len(bad) != 0 {
		t.Errorf("money after the upgrade: %+v (%v)", bad, err)
	}
}
