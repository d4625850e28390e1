package services

import (
	"regexp"
	"testing"
	"time"
)

// TestNewOrderNo_ShapeTimeAndSpread: an order number is 15 upper-case base-36
// characters, OrderNoTime reads its creation time back to the millisecond, and numbers
// made in the same millisecond differ in their random part.
func TestNewOrderNo_ShapeTimeAndSpread(t *testing.T) {
	now := time.Date(2026, 12, 5, 19, 30, 0, 123_000_000, time.UTC)
	shape := regexp.MustCompile(`^[0-9A-Z]{15}$`)
	seen := map[string]bool{}
	for range 10000 {
		no := NewOrderNo(now)
		if !shape.MatchString(no) {
			t.Fatalf("order number %q is not 15 upper-case base-36 characters", no)
		}
		if got, ok := OrderNoTime(no); !ok || !got.Equal(now) {
			t.Fatalf("OrderNoTime(%q) = %v, %v; want %v", no, got, ok, now)
		}
		seen[no[9:]] = true
	}
	// 10,000 draws from 36^6 (2.2 billion) values repeat about once in 50 runs
	if len(seen) < 9990 {
		t.Fatalf("%d distinct random parts in 10,000 order numbers", len(seen))
	}
}
