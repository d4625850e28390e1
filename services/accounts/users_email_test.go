package accounts_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestRegister_AccentedAndPlainEmailAreTwoAccounts: an accent makes another address, so
// registering "ánna@" first neither blocks "anna@" nor lets either sign in to the other.
func TestRegister_AccentedAndPlainEmailAreTwoAccounts(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	attacker, err := e.Users.Register(ctx, "ánna@x.test", "attacker-pw", "Mallory")
	if err != nil {
		t.Fatalf("register ánna@x.test: %v", err)
	}
	anna, err := e.Users.Register(ctx, "anna@x.test", "anna-password", "Anna")
	if err != nil {
		t.Fatalf("register anna@x.test after ánna@x.test: %v, want a new account", err)
	}
	if anna == attacker {
		t.Fatalf("anna@x.test and ánna@x.test are the same account %d", anna)
	}
	if _, u, err := e.Users.Login(ctx, "anna@x.test", "anna-password"); err != nil || u.ID != anna || u.Email != "anna@x.test" {
		t.Fatalf("login anna@x.test: %+v, %v; want account %d", u, err, anna)
	}
	if _, u, err := e.Users.Login(ctx, "anna@x.test", "attacker-pw"); err == nil {
		t.Fatalf("anna@x.test signs in with ánna's password to account %d", u.ID)
	}
	if _, u, err := e.Users.Login(ctx, "ánna@x.test", "anna-password"); err == nil {
		t.Fatalf("ánna@x.test signs in with anna's password to account %d", u.ID)
	}
	if _, u, err := e.Users.Login(ctx, "a\u0301nna@x.test", "attacker-pw"); err != nil || u.ID != attacker {
		t.Fatalf("login with a decomposed accent: %+v, %v; want account %d", u, err, attacker)
	}
	var n int
	if err := e.DB.Get(&n, "SELECT COUNT(*) FROM users WHERE email IN ('anna@x.test', 'ánna@x.test')"); err != nil || n != 2 {
		t.Fatalf("%d rows, %v; want 2", n, err)
	}
}

// TestLogin_FullWidthCapitalsAreTheSameAccount: "ＡＮＮＡ@x.test" signs in to (and cannot
// register beside) anna@x.test.
func TestLogin_FullWidthCapitalsAreTheSameAccount(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	anna, err := e.Users.Register(ctx, "anna@x.test", "anna-password", "Anna")
	if err != nil {
		t.Fatal(err)
	}
	for _, spelling := range []string{"ＡＮＮＡ@x.test", "ａｎｎａ@ｘ.ｔｅｓｔ", "Anna@X.TEST", " anna@x.test "} {
		if _, u, err := e.Users.Login(ctx, spelling, "anna-password"); err != nil || u.ID != anna {
			t.Errorf("login %+q: %+v, %v; want account %d", spelling, u, err, anna)
		}
	}
	if _, err := e.Users.Register(ctx, "ＡＮＮＡ@x.test", "other-password", "Twin"); services.ErrorCode(err) != services.CodeConflict {
		t.Errorf("register ＡＮＮＡ@x.test beside anna@x.test: %v, want CONFLICT", err)
	}
	for _, bad := range []string{"an\u200bna@x.test", "\u202eanna@x.test", "anna\u2066@x.test"} {
		if _, _, err := e.Users.Login(ctx, bad, "anna-password"); services.ErrorCode(err) != services.CodeInvalidRequest {
			t.Errorf("login %+q: %v, want INVALID_REQUEST", bad, err)
		}
		if _, err := e.Users.Register(ctx, bad, "anna-password", "Anna"); services.ErrorCode(err) != services.CodeInvalidRequest {
			t.Errorf("register %+q: %v, want INVALID_REQUEST", bad, err)
		}
	}
}

// TestLoginLimit_LockedAccountIsLockedInEverySpelling: once anna@x.test has used its
// sign-in allowance, every spelling that is anna's account is RATE_LIMITED too, from any
// client address; ánna@x.test, another account, is not.
func TestLoginLimit_LockedAccountIsLockedInEverySpelling(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	lim := orders.NewRateLimiter(e.RDB, orders.Limits{LoginPerMinute: 3, LoginBurst: 3, LoginIPPerMinute: 1e6, LoginIPBurst: 1e6}, "sf")
	for i := 0; i < 3; i++ {
		if err := lim.AllowLogin(ctx, "anna@x.test", fmt.Sprintf("192.0.2.%d", i)); err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	for i, spelling := range []string{"anna@x.test", "ANNA@x.test", "ＡＮＮＡ@x.test", "ａｎｎａ@x.test", "anna＠x.test", " Anna@X.Test\t", "\U0001D41Anna@x.test"} {
		err := lim.AllowLogin(ctx, spelling, fmt.Sprintf("198.51.100.%d", i))
		var se *services.Error
		if services.ErrorCode(err) != services.CodeRateLimited || !errors.As(err, &se) || se.RetryAfterS < 1 {
			t.Errorf("spelling %+q after lockout: %v, want RATE_LIMITED with a wait", spelling, err)
		}
	}
	if err := lim.AllowLogin(ctx, "ánna@x.test", "203.0.113.1"); err != nil {
		t.Errorf("ánna@x.test is another account, but: %v", err)
	}
	for _, bad := range []string{"an\u200bna@x.test", "anna@x.test\u200d", "\u202eanna@x.test"} {
		if err := lim.AllowLogin(ctx, bad, "203.0.113.2"); services.ErrorCode(err) != services.CodeInvalidRequest {
			t.Errorf("spelling %+q: %v, want INVALID_REQUEST", bad, err)
		}
	}
}

// TestLoginLimit_KeyedOnClientAddress: one address trying many accounts is stopped by
// the per-address limit, while another address still gets in.
func TestLoginLimit_KeyedOnClientAddress(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	lim := orders.NewRateLimiter(e.RDB, orders.Limits{LoginPerMinute: 1e6, LoginBurst: 1e6, LoginIPPerMinute: 3, LoginIPBurst: 3}, "sf")
	for i := 0; i < 3; i++ {
		if err := lim.AllowLogin(ctx, fmt.Sprintf("user%d@x.test", i), "192.0.2.7"); err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	err := lim.AllowLogin(ctx, "fresh@x.test", "192.0.2.7")
	var se *services.Error
	if services.ErrorCode(err) != services.CodeRateLimited || !errors.As(err, &se) || se.RetryAfterS < 1 {
		t.Fatalf("4th account from one address: %v, want RATE_LIMITED", err)
	}
	if err := lim.AllowLogin(ctx, "fresh@x.test", "192.0.2.8"); err != nil {
		t.Fatalf("another address: %v", err)
	}
}

// TestLogin_UnknownEmailCostsAsMuchAsKnown: a login to an unknown email takes at least
// half as long as a wrong password for a known one (both with the configured bcrypt
// cost, measured in this run), and both get the same answer.
func TestLogin_UnknownEmailCostsAsMuchAsKnown(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	const cost = 8 // well above bcrypt.MinCost (16 times its work), still quick under -race
	users := accounts.NewUsers(e.DB, e.Clock, cost)
	if _, err := users.Register(ctx, "known@x.test", "right-password", "Known"); err != nil {
		t.Fatal(err)
	}
	var h []byte
	if err := e.DB.Get(&h, "SELECT password_hash FROM users WHERE email = 'known@x.test'"); err != nil {
		t.Fatal(err)
	}
	if c, err := bcrypt.Cost(h); err != nil || c != cost {
		t.Fatalf("stored cost %d, %v; want %d", c, err, cost)
	}
	login := func(email string) (time.Duration, error) {
		start := time.Now()
		_, _, err := users.Login(ctx, email, "wrong-password")
		return time.Since(start), err
	}
	var known, unknown []time.Duration
	for i := 0; i < 7; i++ {
		dk, errK := login("known@x.test")
		du, errU := login(fmt.Sprintf("nobody%d@x.test", i))
		if services.ErrorCode(errK) != services.CodeUnauthenticated || services.ErrorCode(errU) != services.CodeUnauthenticated || errK.Error() != errU.Error() {
			t.Fatalf("answers differ: known %v, unknown %v", errK, errU)
		}
		if errU.Error() != "UNAUTHENTICATED: email or password is wrong" {
			t.Fatalf("answer %q", errU)
		}
		known, unknown = append(known, dk), append(unknown, du)
	}
	slices.Sort(known)
	slices.Sort(unknown)
	mk, mu := known[len(known)/2], unknown[len(unknown)/2]
	t.Logf("median login time: known email %v, unknown email %v", mk, mu)
	if float64(mu) < 0.5*float64(mk) {
		t.Errorf("an unknown email answers in %v, a known one in %v: timing tells which accounts exist", mu, mk)
	}
}
