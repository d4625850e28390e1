package stripepay

import (
	"strconv"
	"testing"
)

// TestAmounts: seatflow's minor units become Stripe's smallest unit and back: CNY and
// GBP have 2 decimals on both sides, JPY and KRW none on both, ISK whole krónur that
// Stripe writes with 2 decimals, KWD Stripe's 3 decimals; a fraction Stripe cannot
// charge is refused.
func TestAmounts(t *testing.T) {
	for _, c := range []struct {
		currency      string
		minor, stripe int64
		refused       bool
	}{
		{"CNY", 4500, 4500, false},
		{"GBP", 1200, 1200, false},
		{"usd", 1, 1, false},
		{"JPY", 4500, 4500, false},
		{"KRW", 12000, 12000, false},
		{"ISK", 500, 50000, false},
		{"KWD", 1250, 12500, false},
		{"XOF", 150000, 1500, false},
		{"XOF", 150050, 0, true},
		{"CNY", 0, 0, true},
	} {
		t.Run(strconv.FormatInt(c.minor, 10)+" "+c.currency, func(t *testing.T) {
			got, err := ToStripe(c.minor, c.currency)
			if c.refused {
				if err == nil {
					t.Fatalf("ToStripe(%d %s) = %d, want refused", c.minor, c.currency, got)
				}
				return
			}
			if err != nil || got != c.stripe {
				t.Fatalf("ToStripe(%d %s) = %d, %v; want %d", c.minor, c.currency, got, err, c.stripe)
			}
			back, ok := FromStripe(got, c.currency)
			if !ok || back != c.minor {
				t.Fatalf("FromStripe(%d %s) = %d, %v; want %d", got, c.currency, back, ok, c.minor)
			}
		})
	}
	if _, ok := FromStripe(12345, "ISK"); ok {
		t.Fatal("FromStripe took 123.45 ISK, a fraction seatflow does not count")
	}
}
