package services

import "testing"

// TestCheckCurrency accepts legal tenders only: ISO 4217 codes of metals, funds, tests
// and "no currency" are refused like unknown or lower-case codes.
func TestCheckCurrency(t *testing.T) {
	for _, tc := range []struct {
		code string
		ok   bool
	}{
		{"GBP", true}, {"CNY", true}, {"EUR", true}, {"JPY", true}, {"XAF", true}, {"XOF", true}, {"XCD", true}, {"XPF", true},
		{"XXX", false}, {"XAU", false}, {"XAG", false}, {"XPD", false}, {"XPT", false}, {"XDR", false}, {"XTS", false},
		{"XBA", false}, {"XBB", false}, {"XBC", false}, {"XBD", false}, {"XSU", false}, {"XUA", false},
		{"gbp", false}, {"GB", false}, {"ZZZ", false}, {"", false},
	} {
		t.Run(tc.code, func(t *testing.T) {
			err := CheckCurrency(tc.code)
			if (err == nil) != tc.ok {
				t.Fatalf("CheckCurrency(%q) = %v, want ok %v", tc.code, err, tc.ok)
			}
			if err != nil && ErrorCode(err) != CodeInvalidRequest {
				t.Fatalf("CheckCurrency(%q) = %v, want INVALID_REQUEST", tc.code, err)
			}
		})
	}
}
