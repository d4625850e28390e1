package vouchers_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/vouchers"
)

func newVouchers(t *testing.T) (*testenv.TestEnv, *vouchers.Vouchers, int64) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	staff, err := e.Users.Create(context.Background(), "voucher-staff@test.example", "password-123", "Staff", services.RoleStaff)
	if err != nil {
		t.Fatal(err)
	}
	return e, vouchers.New(e.DB, e.Catalog, audit.NewAudit(e.DB, e.Clock), e.Clock), staff
}

func n(v int64) *int64 { return &v }

func TestVouchers_CreateChecksTheContract(t *testing.T) {
	e, s, staff := newVouchers(t)
	ctx := context.Background()
	now := e.Clock.Now()
	later := now.Add(time.Hour)
	other := e.Exec("INSERT INTO cinemas (name, time_zone, currency, created_at) VALUES ('Other', 'UTC', 'CNY', NOW())")
	ok := vouchers.Input{Code: "summer-15", MaxUses: 10, Rule: vouchers.Rule{PercentOff: n(15)}}
	v, err := s.Create(ctx, staff, ok)
	if err != nil {
		t.Fatal(err)
	}
	if v.Code != "SUMMER-15" || v.CinemaID != 1 || !v.Active || v.Uses != 0 {
		t.Errorf("created %+v", v)
	}
	if a := e.AuditOf("voucher", "SUMMER-15"); len(a) != 1 || a[0].Action != "voucher.create" || a[0].CinemaID == nil || *a[0].CinemaID != 1 {
		t.Errorf("audit: %+v", a)
	}
	with := func(f func(*vouchers.Input)) vouchers.Input {
		in := vouchers.Input{Code: "CODE-1", MaxUses: 1, Rule: vouchers.Rule{AmountOffMinor: n(500)}}
		f(&in)
		return in
	}
	cases := []struct {
		name string
		in   vouchers.Input
		code string
	}{
		{"too short", with(func(in *vouchers.Input) { in.Code = "ABC" }), services.CodeInvalidRequest},
		{"too long", with(func(in *vouchers.Input) { in.Code = strings.Repeat("A", 33) }), services.CodeInvalidRequest},
		{"a space inside", with(func(in *vouchers.Input) { in.Code = "AB CD" }), services.CodeInvalidRequest},
		{"max_uses 0", with(func(in *vouchers.Input) { in.MaxUses = 0 }), services.CodeInvalidRequest},
		{"no rule", with(func(in *vouchers.Input) { in.Rule = vouchers.Rule{} }), services.CodeInvalidRequest},
		{"two rules", with(func(in *vouchers.Input) { in.Rule.PercentOff = n(10) }), services.CodeInvalidRequest},
		{"percent 0", with(func(in *vouchers.Input) { in.Rule = vouchers.Rule{PercentOff: n(0)} }), services.CodeInvalidRequest},
		{"percent 101", with(func(in *vouchers.Input) { in.Rule = vouchers.Rule{PercentOff: n(101)} }), services.CodeInvalidRequest},
		{"amount 0", with(func(in *vouchers.Input) { in.Rule = vouchers.Rule{AmountOffMinor: n(0)} }), services.CodeInvalidRequest},
		{"price -1", with(func(in *vouchers.Input) { in.Rule = vouchers.Rule{PriceMinor: n(-1)} }), services.CodeInvalidRequest},
		{"window backwards", with(func(in *vouchers.Input) { in.ValidFrom, in.ValidUntil = &later, &now }), services.CodeInvalidRequest},
		{"empty window", with(func(in *vouchers.Input) { in.ValidFrom, in.ValidUntil = &now, &now }), services.CodeInvalidRequest},
		{"unknown show", with(func(in *vouchers.Input) { in.ShowIDs = []int64{e.Show.ID + 1000} }), services.CodeInvalidRequest},
		{"another cinema's show", with(func(in *vouchers.Input) { in.CinemaID, in.ShowIDs = other, []int64{e.Show.ID} }), services.CodeInvalidRequest},
		{"unknown ticket type", with(func(in *vouchers.Input) { in.TicketTypes = []string{"pensioner"} }), services.CodeInvalidRequest},
		{"unknown cinema", with(func(in *vouchers.Input) { in.CinemaID = other + 100 }), services.CodeNotFound},
		{"code taken in another case", with(func(in *vouchers.Input) { in.Code = "Summer-15" }), services.CodeConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.CountRows("vouchers")
			_, err := s.Create(ctx, staff, c.in)
			if services.ErrorCode(err) != c.code {
				t.Fatalf("err = %v, want %s", err, c.code)
			}
			if c.code == services.CodeConflict && !errors.Is(err, vouchers.ErrDuplicateCode) {
				t.Errorf("a taken code: %v, want ErrDuplicateCode", err)
			}
			if after := e.CountRows("vouchers"); after != before {
				t.Errorf("a refused voucher changed the vouchers: %d -> %d", before, after)
			}
		})
	}
	t.Run("limits of its cinema", func(t *testing.T) {
		v, err := s.Create(ctx, staff, with(func(in *vouchers.Input) {
			in.Code, in.ShowIDs, in.TicketTypes = "SHOW-ONLY", []int64{e.Show.ID, e.Show.ID}, []string{"adult"}
		}))
		if err != nil || len(v.ShowIDs) != 1 || v.ShowIDs[0] != e.Show.ID || len(v.TicketTypes) != 1 {
			t.Fatalf("%+v %v", v, err)
		}
	})
}

func TestVouchers_ScopeUpdateAndBatch(t *testing.T) {
	e, s, staff := newVouchers(t)
	ctx := context.Background()
	other := e.Exec("INSERT INTO cinemas (name, time_zone, currency, created_at) VALUES ('Other', 'UTC', 'CNY', NOW())")
	limited := services.WithCinemaScope(ctx, services.CinemaScope{IDs: []int64{other}})
	if _, err := s.Create(ctx, staff, vouchers.Input{Code: "FIRST-1", MaxUses: 2, Rule: vouchers.Rule{PriceMinor: n(1000)}}); err != nil {
		t.Fatal(err)
	}
	t.Run("limited staff", func(t *testing.T) {
		v, err := s.Create(limited, staff, vouchers.Input{Code: "OTHER-1", MaxUses: 2, Rule: vouchers.Rule{PriceMinor: n(1000)}})
		if err != nil || v.CinemaID != other {
			t.Fatalf("limited staff's default cinema: %+v %v", v, err)
		}
		if _, err := s.Create(limited, staff, vouchers.Input{Code: "OTHER-2", CinemaID: 1, MaxUses: 2, Rule: vouchers.Rule{PriceMinor: n(1)}}); services.ErrorCode(err) != services.CodeForbidden {
			t.Errorf("another cinema: %v, want FORBIDDEN", err)
		}
		if _, err := s.ByCode(limited, "first-1"); services.ErrorCode(err) != services.CodeForbidden {
			t.Errorf("reading another cinema's: %v, want FORBIDDEN", err)
		}
		list, err := s.List(limited, vouchers.Filter{})
		if err != nil || len(list) != 1 || list[0].Code != "OTHER-1" {
			t.Errorf("limited list: %v %v", list, err)
		}
	})
	t.Run("max_uses below the live uses", func(t *testing.T) {
		e.Exec("UPDATE vouchers SET uses = 2 WHERE code = 'FIRST-1'")
		_, err := s.Update(ctx, staff, "first-1", vouchers.Change{MaxUses: n(1)})
		if services.ErrorCode(err) != services.CodeInvalidRequest || !strings.Contains(err.Error(), "2 live uses") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("end and reactivate", func(t *testing.T) {
		off, on := false, true
		v, err := s.Update(ctx, staff, "FIRST-1", vouchers.Change{Active: &off, MaxUses: n(5), Rule: &vouchers.Rule{PercentOff: n(20)}})
		if err != nil || v.Active || v.MaxUses != 5 || v.PercentOff == nil || v.PriceMinor != nil || v.Uses != 2 {
			t.Fatalf("%+v %v", v, err)
		}
		if v, err = s.Update(ctx, staff, "FIRST-1", vouchers.Change{Active: &on}); err != nil || !v.Active {
			t.Fatalf("%+v %v", v, err)
		}
		if a := e.AuditOf("voucher", "FIRST-1"); len(a) != 3 {
			t.Errorf("audit entries: %d, want 3", len(a))
		}
	})
	t.Run("batch", func(t *testing.T) {
		vs, err := s.CreateBatch(ctx, staff, vouchers.BatchInput{Prefix: "xmas", Count: 50, Name: "Christmas flyers",
			Input: vouchers.Input{Rule: vouchers.Rule{AmountOffMinor: n(500)}, TicketTypes: []string{"adult"}}})
		if err != nil || len(vs) != 50 {
			t.Fatalf("%d %v", len(vs), err)
		}
		list, err := s.List(ctx, vouchers.Filter{Batch: "Christmas flyers"})
		if err != nil || len(list) != 50 || list[0].MaxUses != 1 || !strings.HasPrefix(list[0].Code, "XMAS-") || len(list[0].Code) != 11 || len(list[0].TicketTypes) != 1 {
			t.Fatalf("%d %+v %v", len(list), list[0], err)
		}
		_, err = s.CreateBatch(ctx, staff, vouchers.BatchInput{Prefix: "xmas", Count: 1, Name: "Christmas flyers",
			Input: vouchers.Input{Rule: vouchers.Rule{AmountOffMinor: n(500)}}})
		if services.ErrorCode(err) != services.CodeConflict {
			t.Errorf("a batch name in use: %v", err)
		}
		for _, bad := range []vouchers.BatchInput{{Prefix: "", Count: 1, Name: "x"}, {Prefix: "A", Count: 0, Name: "x"},
			{Prefix: "A", Count: 1001, Name: "x"}, {Prefix: "A", Count: 1, Name: " "}, {Prefix: strings.Repeat("A", 26), Count: 1, Name: "x"}} {
			bad.Rule = vouchers.Rule{PercentOff: n(5)}
			if _, err := s.CreateBatch(ctx, staff, bad); services.ErrorCode(err) != services.CodeInvalidRequest {
				t.Errorf("%+v: %v", bad, err)
			}
		}
	})
}

func TestVouchers_Quote(t *testing.T) {
	e, s, staff := newVouchers(t)
	ctx := context.Background()
	now := e.Clock.Now()
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	mk := func(in vouchers.Input) {
		if _, err := s.Create(ctx, staff, in); err != nil {
			t.Fatal(err)
		}
	}
	mk(vouchers.Input{Code: "PCT-15", MaxUses: 10, Rule: vouchers.Rule{PercentOff: n(15)}})
	mk(vouchers.Input{Code: "LATER", MaxUses: 10, Rule: vouchers.Rule{PercentOff: n(15)}, ValidFrom: &future})
	mk(vouchers.Input{Code: "GONE", MaxUses: 10, Rule: vouchers.Rule{PercentOff: n(15)}, ValidUntil: &past})
	mk(vouchers.Input{Code: "ONE-LEFT", MaxUses: 1, Rule: vouchers.Rule{PriceMinor: n(100)}})
	mk(vouchers.Input{Code: "CHILD-ONLY", MaxUses: 5, Rule: vouchers.Rule{AmountOffMinor: n(9999)}, TicketTypes: []string{"adult"}, ShowIDs: []int64{e.Show.ID}})
	mk(vouchers.Input{Code: "ENDED", MaxUses: 5, Rule: vouchers.Rule{AmountOffMinor: n(1)}})
	off := false
	if _, err := s.Update(ctx, staff, "ENDED", vouchers.Change{Active: &off}); err != nil {
		t.Fatal(err)
	}
	seats := []vouchers.QuoteSeat{{SeatID: 1, Label: "A1", Type: "adult", ListMinor: 4599}, {SeatID: 2, Label: "A2", Type: "child", ListMinor: 3000}}
	q, err := s.Quote(ctx, "pct-15", e.Show, seats)
	if err != nil || q.Seats[0].PriceMinor != 3909 || q.Seats[1].PriceMinor != 2550 || q.DiscountMinor != 690+450 || q.TotalMinor != 3909+2550 {
		t.Fatalf("%+v %v", q, err)
	}
	q, err = s.Quote(ctx, "CHILD-ONLY", e.Show, seats)
	if err != nil || q.Seats[0].PriceMinor != 0 || q.Seats[1].Covered || q.TotalMinor != 3000 {
		t.Fatalf("%+v %v", q, err)
	}
	cases := []struct{ name, code, says string }{
		{"unknown", "NOPE-NOPE", "unknown"},
		{"not a code", "a b", "not a voucher code"},
		{"not yet valid", "LATER", "not valid yet"},
		{"expired", "GONE", "expired"},
		{"inactive", "ENDED", "no longer active"},
		{"too few uses", "ONE-LEFT", "1 uses left"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Quote(ctx, c.code, e.Show, seats)
			if services.ErrorCode(err) != services.CodeVoucherInvalid || !strings.Contains(err.Error(), c.says) {
				t.Errorf("err = %v, want VOUCHER_INVALID saying %q", err, c.says)
			}
		})
	}
	t.Run("another cinema's show", func(t *testing.T) {
		other := *e.Show
		other.CinemaID++
		_, err := s.Quote(ctx, "PCT-15", &other, seats)
		if !errors.Is(err, vouchers.ErrOtherCinema) || !strings.Contains(err.Error(), "not valid at this cinema") {
			t.Errorf("err = %v, want the order's reason: not valid at this cinema", err)
		}
	})
	t.Run("covers none", func(t *testing.T) {
		_, err := s.Quote(ctx, "CHILD-ONLY", e.Show, seats[1:])
		if services.ErrorCode(err) != services.CodeVoucherInvalid || !strings.Contains(err.Error(), "covers none") {
			t.Errorf("err = %v", err)
		}
	})
}

// TestVouchers_CinemaFromItsShows: a voucher limited to shows and given no cinema takes
// its shows' cinema (not the install's first, not a limited staff member's only one);
// shows of two cinemas, an unknown show, or shows outside a limited staff member's
// cinemas are refused and write nothing; a cinema given must still be the shows'.
func TestVouchers_CinemaFromItsShows(t *testing.T) {
	e, s, staff := newVouchers(t)
	ctx := context.Background()
	other := e.Exec("INSERT INTO cinemas (name, time_zone, currency, created_at) VALUES ('Other', 'UTC', 'CNY', NOW())")
	hall := e.Exec("INSERT INTO halls (cinema_id, name, rows_n, cols_n) VALUES (?, 'Other hall', 1, 1)", other)
	show := e.Exec(`INSERT INTO shows (movie_id, hall_id, starts_at, sale_opens_at, sale_closes_at, status, purchase_limit, currency, created_at)
		SELECT movie_id, ?, starts_at, sale_opens_at, sale_closes_at, status, purchase_limit, currency, created_at FROM shows WHERE id = ?`, hall, e.Show.ID)
	first := e.Show.ID
	limitedOther := services.WithCinemaScope(ctx, services.CinemaScope{IDs: []int64{other}})
	limitedFirst := services.WithCinemaScope(ctx, services.CinemaScope{IDs: []int64{e.Show.CinemaID}})
	for i, tc := range []struct {
		name       string
		ctx        context.Context
		cinema     int64
		shows      []int64
		wantCinema int64
		code       string
	}{
		{"another cinema's show, no cinema given", ctx, 0, []int64{show}, other, ""},
		{"the first cinema's show, no cinema given", ctx, 0, []int64{first}, e.Show.CinemaID, ""},
		{"limited staff, their cinema's show", limitedOther, 0, []int64{show}, other, ""},
		{"shows of two cinemas", ctx, 0, []int64{first, show}, 0, services.CodeInvalidRequest},
		{"an unknown show", ctx, 0, []int64{show + 1000}, 0, services.CodeInvalidRequest},
		{"limited staff, another cinema's show", limitedFirst, 0, []int64{show}, 0, services.CodeForbidden},
		{"a cinema given that is not the show's", ctx, e.Show.CinemaID, []int64{show}, 0, services.CodeInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.CountRows("vouchers")
			v, err := s.Create(tc.ctx, staff, vouchers.Input{Code: "SHOWS-" + strconv.Itoa(i), CinemaID: tc.cinema, MaxUses: 5,
				Rule: vouchers.Rule{PercentOff: n(10)}, ShowIDs: tc.shows})
			if tc.code != "" {
				if services.ErrorCode(err) != tc.code || e.CountRows("vouchers") != before {
					t.Fatalf("err = %v, want %s and nothing written", err, tc.code)
				}
				return
			}
			if err != nil || v.CinemaID != tc.wantCinema {
				t.Fatalf("created %+v %v, want cinema %d", v, err, tc.wantCinema)
			}
		})
	}
}
