package views

import (
	"testing"
	"time"
)

func TestDashboardHelpers(t *testing.T) {
	t.Run("Percent never rounds to a misleading 0% or 100%", func(t *testing.T) {
		for p, want := range map[float64]string{0: "0%", 0.4: "<1%", 1.0: "1%", 36.6: "37%", 99.4: ">99%", 100: "100%", 120: "100%"} {
			if got := Percent(p); got != want {
				t.Errorf("Percent(%v) = %q, want %q", p, got, want)
			}
		}
	})
	t.Run("BarWidth clamps", func(t *testing.T) {
		if BarWidth(-5) != "width:0.00%" || BarWidth(150) != "width:100.00%" || BarWidth(12.5) != "width:12.50%" {
			t.Errorf("%s %s %s", BarWidth(-5), BarWidth(150), BarWidth(12.5))
		}
	})
	t.Run("RevenueTotal per currency, zero in the cinema's currency", func(t *testing.T) {
		if got := RevenueTotal(&Revenue{}, "CNY"); got != "¥0.00" {
			t.Errorf("empty: %q", got)
		}
		r := &Revenue{Totals: []*RevenueLine{{Currency: "CNY", AmountMinor: 123450, Orders: 2}, {Currency: "USD", AmountMinor: 500, Orders: 1}}}
		if got := RevenueTotal(r, "CNY"); got != "¥1,234.50 + $5.00" || RevenueOrders(r) != 3 {
			t.Errorf("two currencies: %q, %d orders", got, RevenueOrders(r))
		}
	})
	t.Run("times read in the cinema's zone", func(t *testing.T) {
		sh, err := time.LoadLocation("Asia/Shanghai")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) // 18:00 local
		o := &PendingOrder{ExpiresAt: now.Add(14 * time.Minute)}
		if got := PendingDeadline(o, now, sh); got != "18:14 (in 14 minutes)" {
			t.Errorf("deadline %q", got)
		}
		if got := PendingDeadline(o, now.Add(20*time.Minute), sh); got != "18:14 (overdue)" {
			t.Errorf("overdue %q", got)
		}
		if got := TaskWhen(now.Add(7*time.Hour+30*time.Second), now, sh); got != "Tue 1 Dec, 01:00:30" {
			t.Errorf("tomorrow local: %q", got)
		}
		if got := TaskWhen(now.Add(30*time.Second), now, sh); got != "18:00:30" {
			t.Errorf("today: %q", got)
		}
		if got := TaskWhen(time.Time{}, now, sh); got != "—" {
			t.Errorf("archived: %q", got)
		}
		r := &Revenue{From: time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC), To: time.Date(2026, 12, 6, 16, 0, 0, 0, time.UTC)}
		if got := RevenueRange(r, sh); got != "Mon 30 Nov – Sun 6 Dec" {
			t.Errorf("week %q", got)
		}
		r.To = time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC)
		if got := RevenueRange(r, sh); got != "Mon 30 Nov" {
			t.Errorf("day %q", got)
		}
	})
	t.Run("OccupancyLabel", func(t *testing.T) {
		s := &ShowOccupancy{Sellable: 200, Sold: 50, Held: 3, Free: 147, SoldPercent: 25, HeldPercent: 1.5}
		if got := OccupancyLabel(s); got != "25% sold, 2% held, 147 of 200 seats free" {
			t.Errorf("%q", got)
		}
	})
}
