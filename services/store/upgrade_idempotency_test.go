package store_test

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// TestUpgrade_IdempotencyKeysMoveIntoTheirOrders migrates a database of migration 91,
// whose idempotency_keys table names two orders of one buyer, to the current schema:
// each key and request hash is in its order's row (a replay finds them), the counter
// sale has none, the table is gone, the key still refuses a second order of its buyer
// (uq_orders_idem) until its use is cleared, and the show's newest key is the newest order's.
func TestUpgrade_IdempotencyKeysMoveIntoTheirOrders(t *testing.T) {
	ctx := context.Background()
	settings := services.Cinema{Name: "Kino", TimeZone: "Europe/Berlin", Currency: "EUR"}
	db := upgradeDB(t, "_upgrade_idem", settings, 91)
	at := time.Date(2030, 1, 10, 12, 0, 0, 0, time.UTC)
	first, second := sha256.Sum256([]byte("first request")), sha256.Sum256([]byte("second request"))
	writeOld(t, db, append(oneShowRows(at),
		oldRow{`INSERT INTO orders (id, order_no, user_id, show_id, status, total_minor, currency, created_at, expires_at, channel)
			VALUES (1, 'SF-FIRST', 1, 1, 'paid', 1000, 'EUR', ?, ?, 'online'),
			       (2, 'SF-SECOND', 1, 1, 'pending', 1000, 'EUR', ?, ?, 'online'),
			       (3, 'SF-COUNTER', NULL, 1, 'paid', 1000, 'EUR', ?, ?, 'box_office')`,
			[]any{at, at.Add(15 * time.Minute), at.Add(time.Hour), at.Add(75 * time.Minute), at.Add(2 * time.Hour), at.Add(2 * time.Hour)}},
		oldRow{`INSERT INTO idempotency_keys (user_id, idem_key, request_hash, order_id, created_at) VALUES (1, 'k-first', ?, 1, ?), (1, 'k-second', ?, 2, ?)`,
			[]any{first[:], at, second[:], at.Add(time.Hour)}})...)
	if _, err := store.Migrate(ctx, db, settings); err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	for key, want := range map[string]struct {
		order int64
		hash  [32]byte
	}{"k-first": {1, first}, "k-second": {2, second}} {
		got, err := store.IdempotencyKeySince(ctx, db, 1, key, at.Add(-time.Hour))
		if err != nil || got.OrderID != want.order || string(got.Hash) != string(want.hash[:]) {
			t.Errorf("key %s after the upgrade: order %d (%v), want order %d and its request's hash", key, got.OrderID, err, want.order)
		}
	}
	var keyed, tables int
	if err := db.Get(&keyed, "SELECT COUNT(*) FROM orders WHERE idem_key IS NOT NULL"); err != nil || keyed != 2 {
		t.Errorf("%d orders hold a key (%v), want 2 (the counter sale none)", keyed, err)
	}
	if err := db.Get(&tables, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'idempotency_keys'"); err != nil || tables != 0 {
		t.Errorf("idempotency_keys is still there (%d, %v)", tables, err)
	}
	if last, err := store.LastIdempotencyKeyAt(ctx, db, 1, at.Add(-time.Hour)); err != nil || !last.Valid || !last.Time.Equal(at.Add(time.Hour)) {
		t.Errorf("the show's newest key %v (%v), want the second order's %s", last, err, at.Add(time.Hour))
	}

	// the key names its order: another order of the buyer with it is refused, until the
	// old use is cleared (what a use after 24 h does)
	again := &services.Order{OrderNo: "SF-AGAIN", UserID: 1, ShowID: 1, Status: services.OrderPending, TotalMinor: 1000, Currency: "EUR",
		CreatedAt: at.Add(26 * time.Hour), ExpiresAt: at.Add(26*time.Hour + 15*time.Minute), IdempotencyKey: "k-first", RequestHash: second[:]}
	if err := store.InsertOrders(ctx, db, []*services.Order{again}, store.SeatsLive, 1); !store.DuplicateOn(err, store.IdempotencyKeyUnique) {
		t.Fatalf("a second order with a used key: %v, want 1062 on %s", err, store.IdempotencyKeyUnique)
	}
	if err := store.ClearIdempotencyKeyBefore(ctx, db, 1, "k-first", again.CreatedAt.Add(-24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := store.InsertOrders(ctx, db, []*services.Order{again}, store.SeatsLive, 1); err != nil {
		t.Fatalf("the key after its old use was cleared: %v", err)
	}
	if got, err := store.IdempotencyKeySince(ctx, db, 1, "k-first", at.Add(-time.Hour)); err != nil || got.OrderID != again.ID {
		t.Errorf("the key now names order %d (%v), want the new order %d", got.OrderID, err, again.ID)
	}
}
