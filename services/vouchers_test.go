package services

import "testing"

func TestVoucher_Price(t *testing.T) {
	p := func(n int64) *int64 { return &n }
	cases := []struct {
		name  string
		v     Voucher
		price int64
		want  int64
	}{
		{"15 % off rounds down", Voucher{PercentOff: p(15)}, 4599, 3909},
		{"100 % off is free", Voucher{PercentOff: p(100)}, 4599, 0},
		{"amount off", Voucher{AmountOffMinor: p(500)}, 4599, 4099},
		{"amount off never below 0", Voucher{AmountOffMinor: p(9000)}, 4599, 0},
		{"set price", Voucher{PriceMinor: p(3000)}, 4599, 3000},
		{"set price never raises", Voucher{PriceMinor: p(5000)}, 4599, 4599},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.v.Price(c.price); got != c.want {
				t.Errorf("Price(%d) = %d, want %d", c.price, got, c.want)
			}
		})
	}
}

func TestVoucher_CoversAndCode(t *testing.T) {
	v := Voucher{ShowIDs: []int64{7}, TicketTypes: []string{"child"}}
	if !v.Covers(7, "child") || v.Covers(8, "child") || v.Covers(7, TicketAdult) {
		t.Error("a voucher limited to show 7's child seats covers the wrong seats")
	}
	if !(&Voucher{}).Covers(9, TicketAdult) {
		t.Error("a voucher naming nothing covers every seat")
	}
	for in, want := range map[string]string{" summer-25 ": "SUMMER-25", "abcd": "ABCD"} {
		if got, ok := CanonicalVoucherCode(in); !ok || got != want {
			t.Errorf("CanonicalVoucherCode(%q) = %q, %v", in, got, ok)
		}
	}
	for _, bad := range []string{"abc", "has space", "ÄBCD", "x_yz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456"} {
		if _, ok := CanonicalVoucherCode(bad); ok {
			t.Errorf("CanonicalVoucherCode(%q) accepted", bad)
		}
	}
}
