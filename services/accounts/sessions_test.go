package accounts_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// sessionUser creates an account and returns the users service and its id.
func sessionUser(t *testing.T, e *testenv.TestEnv, users *accounts.Users) int64 {
	t.Helper()
	id, err := users.Register(context.Background(), "sess-"+time.Now().Format("150405.000000")+"@seatflow.test", "password-123", "Sam")
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestSessions_IdleTimeoutAndMaxAge: a session ends after Idle without requests, a
// session in use stays alive past Idle, and every session ends at MaxAge.
func TestSessions_IdleTimeoutAndMaxAge(t *testing.T) {
	e := testenv.NewTestEnv(t, orders.Limits{})
	users := accounts.NewUsers(e.DB, e.Clock, bcrypt.MinCost).WithSessions(accounts.SessionPolicy{Idle: 10 * time.Minute, MaxAge: time.Hour}, nil)
	uid := sessionUser(t, e, users)
	ctx := context.Background()

	idle, err := users.NewSession(ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	active, _ := users.NewSession(ctx, uid)
	for i := 0; i < 5; i++ { // 5 x 7 min = 35 min: active keeps going, idle times out
		e.Clock.Advance(7 * time.Minute)
		if _, err := users.Authenticate(ctx, active); err != nil {
			t.Fatalf("a session in use ended after %d min: %v", (i+1)*7, err)
		}
	}
	if _, err := users.Authenticate(ctx, idle); services.ErrorCode(err) != services.CodeUnauthenticated {
		t.Errorf("a session unused for 35 min (idle 10 min): err = %v", err)
	}
	for i := 0; i < 4; i++ { // to 63 min: past MaxAge although used every 7 min
		e.Clock.Advance(7 * time.Minute)
		_, err = users.Authenticate(ctx, active)
	}
	if services.ErrorCode(err) != services.CodeUnauthenticated {
		t.Errorf("a session past its hour of life: err = %v", err)
	}
}

// TestSessions_CacheAnswersWithoutMySQL: within the cache TTL a known token is answered
// from memory (a row deleted behind the service's back still answers); after the TTL,
// MySQL is asked again.
func TestSessions_CacheAnswersWithoutMySQL(t *testing.T) {
	e := testenv.NewTestEnv(t, orders.Limits{})
	cache := accounts.NewSessionCache(e.RDB, "sfsess"+t.Name(), 300*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	startCache(t, cache)
	users := accounts.NewUsers(e.DB, e.Clock, bcrypt.MinCost).WithSessions(accounts.SessionPolicy{}, cache)
	tok, _ := users.NewSession(context.Background(), sessionUser(t, e, users))
	if _, err := users.Authenticate(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.Exec("DELETE FROM sessions"); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Authenticate(context.Background(), tok); err != nil {
		t.Errorf("not answered from the cache: %v", err)
	}
	time.Sleep(400 * time.Millisecond)
	if _, err := users.Authenticate(context.Background(), tok); services.ErrorCode(err) != services.CodeUnauthenticated {
		t.Errorf("after the TTL: err = %v, want UNAUTHENTICATED", err)
	}
}

// TestSessions_CacheEndsWithTheSession: a session cached under a TTL far longer than
// its life is answered from memory no longer than it lives.
func TestSessions_CacheEndsWithTheSession(t *testing.T) {
	e := testenv.NewTestEnv(t, orders.Limits{})
	cache := accounts.NewSessionCache(e.RDB, "sfsess"+t.Name(), time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	startCache(t, cache)
	users := accounts.NewUsers(e.DB, e.Clock, bcrypt.MinCost).WithSessions(accounts.SessionPolicy{MaxAge: 300 * time.Millisecond}, cache)
	tok, _ := users.NewSession(context.Background(), sessionUser(t, e, users))
	if _, err := users.Authenticate(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(time.Second) // the session has ended in MySQL
	time.Sleep(400 * time.Millisecond)
	if _, err := users.Authenticate(context.Background(), tok); services.ErrorCode(err) != services.CodeUnauthenticated {
		t.Errorf("a session past its end (cache TTL 1 h): err = %v, want UNAUTHENTICATED", err)
	}
}

// TestSessions_FullCacheKeepsMostSessions: more sessions than the cache holds leave it
// at least three quarters full (random entries go, not all at once): after 20 sessions
// through a cache of 8, at least 6 are still answered with their rows gone from MySQL.
func TestSessions_FullCacheKeepsMostSessions(t *testing.T) {
	e := testenv.NewTestEnv(t, orders.Limits{})
	cache := accounts.NewSessionCache(e.RDB, "sfsess"+t.Name(), time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	accounts.SetCacheLimit(cache, 8)
	startCache(t, cache)
	users := accounts.NewUsers(e.DB, e.Clock, bcrypt.MinCost).WithSessions(accounts.SessionPolicy{}, cache)
	uid := sessionUser(t, e, users)
	ctx := context.Background()
	var toks []string
	for i := 0; i < 20; i++ {
		tok, err := users.NewSession(ctx, uid)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := users.Authenticate(ctx, tok); err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
	}
	if _, err := e.DB.Exec("DELETE FROM sessions"); err != nil {
		t.Fatal(err)
	}
	cached := 0
	for _, tok := range toks {
		if _, err := users.Authenticate(ctx, tok); err == nil {
			cached++
		}
	}
	if cached < 6 || cached > 8 {
		t.Errorf("%d of 20 sessions answered from a cache of 8, want 6 to 8", cached)
	}
}

// twoProcesses are two users services over e's stores, as two processes have them: each
// with a session cache of its own (TTL one hour) on the same broadcast channel.
func twoProcesses(t *testing.T, e *testenv.TestEnv) []*accounts.Users {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	prefix := "sfsess" + t.Name()
	var procs []*accounts.Users
	for i := 0; i < 2; i++ {
		c := accounts.NewSessionCache(e.RDB, prefix, time.Hour, log)
		startCache(t, c)
		procs = append(procs, accounts.NewUsers(e.DB, e.Clock, bcrypt.MinCost).WithSessions(accounts.SessionPolicy{}, c))
	}
	return procs
}

// TestSessions_LogoutEndsEverywhere: two processes (two services with their own caches
// over the same stores) both have the session cached with a long TTL; logging out in
// one ends it in the other at once (Redis pub/sub), and so does a role change.
func TestSessions_LogoutEndsEverywhere(t *testing.T) {
	e := testenv.NewTestEnv(t, orders.Limits{})
	procs := twoProcesses(t, e)
	ctx := context.Background()
	uid := sessionUser(t, e, procs[0])
	tok, _ := procs[0].NewSession(ctx, uid)
	other, _ := procs[0].NewSession(ctx, uid)
	for _, p := range procs {
		for _, tk := range []string{tok, other} {
			if _, err := p.Authenticate(ctx, tk); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := procs[0].Logout(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if !eventually(func() bool { _, err := procs[1].Authenticate(ctx, tok); return err != nil }) {
		t.Error("the other process still answers a logged-out session from its cache")
	}
	if _, err := procs[1].Authenticate(ctx, other); err != nil {
		t.Errorf("logout ended another session of the user: %v", err)
	}
	// a role change: the other process must read the user afresh
	if _, err := e.DB.Exec("UPDATE users SET role = ? WHERE id = ?", services.RoleStaff, uid); err != nil {
		t.Fatal(err)
	}
	procs[0].UserChanged(ctx, uid)
	if !eventually(func() bool {
		u, err := procs[1].Authenticate(ctx, other)
		return err == nil && u.Role == services.RoleStaff
	}) {
		t.Error("the other process still serves the old role from its cache")
	}
}

// TestSessions_BrokenSubscriptionForgetsTheCache: when the cache's subscription breaks
// and go-redis makes it again by itself, what was published in between is lost, so
// the cache drops every entry: a session ended meanwhile (here in MySQL alone, the
// lost message) is not answered from memory for the rest of a long TTL.
func TestSessions_BrokenSubscriptionForgetsTheCache(t *testing.T) {
	e := testenv.NewTestEnv(t, orders.Limits{})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	one, ok := e.RDB.(*redis.Client)
	if !ok {
		t.Skip("needs one Redis node")
	}
	opts := one.Options()
	name := fmt.Sprintf("sfsess-%d", time.Now().UnixNano())
	own := redis.NewClient(&redis.Options{Addr: opts.Addr, DB: opts.DB, ClientName: name})
	t.Cleanup(func() { _ = own.Close() })
	c := accounts.NewSessionCache(own, "sfsess"+t.Name(), time.Hour, log)
	startCache(t, c)
	users := accounts.NewUsers(e.DB, e.Clock, bcrypt.MinCost).WithSessions(accounts.SessionPolicy{}, c)
	ctx := context.Background()
	tok, err := users.NewSession(ctx, sessionUser(t, e, users))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte(tok))
	if _, err := e.DB.Exec("DELETE FROM sessions WHERE token_hash = ?", h[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Authenticate(ctx, tok); err != nil {
		t.Fatalf("the cache should still answer (its message was lost): %v", err)
	}
	// break the subscription's connection (only this client's, by its name)
	list, err := e.RDB.ClientList(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	killed := 0
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, " name="+name+" ") && strings.Contains(line, " sub=1 ") {
			id := strings.TrimPrefix(strings.Fields(line)[0], "id=")
			if err := e.RDB.Do(ctx, "CLIENT", "KILL", "ID", id).Err(); err != nil {
				t.Fatal(err)
			}
			killed++
		}
	}
	if killed != 1 {
		t.Fatalf("found %d subscription connections named %s, want 1:\n%s", killed, name, list)
	}
	if !eventually(func() bool { _, err := users.Authenticate(ctx, tok); return err != nil }) {
		t.Error("after its subscription broke, the cache still answers a session that ended meanwhile")
	}
	if !eventually(c.Active) {
		t.Error("the cache did not subscribe again")
	}
}

// startCache runs c's subscription for the test and waits until it serves.
func startCache(t *testing.T, c *accounts.SessionCache) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go c.Run(ctx)
	if !eventually(c.Active) {
		t.Fatal("the session cache never subscribed")
	}
}

// eventually polls cond for up to 2 s.
func eventually(cond func() bool) bool {
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// heardEverything waits until procs[0] has applied every session-cache message published
// before the call: a sentinel user's session, cached in procs[0] with its row gone, ends
// there once a language switch made in procs[1] reaches it (Redis hands a subscriber
// its messages in the order they were published).
func heardEverything(t *testing.T, e *testenv.TestEnv, procs []*accounts.Users) {
	t.Helper()
	ctx := context.Background()
	sentinel := sessionUser(t, e, procs[0])
	tok, _ := procs[0].NewSession(ctx, sentinel)
	if _, err := procs[0].Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.Exec("DELETE FROM sessions WHERE user_id = ?", sentinel); err != nil {
		t.Fatal(err)
	}
	if err := procs[1].SetLang(ctx, sentinel, accounts.LangZhHans); err != nil {
		t.Fatal(err)
	}
	if !eventually(func() bool { _, err := procs[0].Authenticate(ctx, tok); return err != nil }) {
		t.Fatal("the sentinel's language switch never reached the other process")
	}
}

// TestSessions_LoginCachesItsSession: the session a login makes is answered from the
// cache at once (its row deleted behind the service's back still answers), so a buyer's
// first request after signing in costs no MySQL lookup; a login through another users
// service (another process) does not put it in this one's cache.
func TestSessions_LoginCachesItsSession(t *testing.T) {
	e := testenv.NewTestEnv(t, orders.Limits{})
	ctx := context.Background()
	cache := accounts.NewSessionCache(e.RDB, "sfsess"+t.Name(), time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	startCache(t, cache)
	users := accounts.NewUsers(e.DB, e.Clock, bcrypt.MinCost).WithSessions(accounts.SessionPolicy{}, cache)
	email := "login-" + time.Now().Format("150405.000000") + "@seatflow.test"
	if _, err := users.Register(ctx, email, "password-123", "Sam"); err != nil {
		t.Fatal(err)
	}
	tok, usr, err := users.Login(ctx, email, "password-123")
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := accounts.NewUsers(e.DB, e.Clock, bcrypt.MinCost).WithSessions(accounts.SessionPolicy{}, nil)
	tokElsewhere, _, err := elsewhere.Login(ctx, email, "password-123")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.Exec("DELETE FROM sessions"); err != nil {
		t.Fatal(err)
	}
	got, err := users.Authenticate(ctx, tok)
	if err != nil {
		t.Fatalf("the session of a login in this process: %v, want it answered from the cache", err)
	}
	if *got != *usr {
		t.Errorf("cached user %+v, want %+v", *got, *usr)
	}
	if _, err := users.Authenticate(ctx, tokElsewhere); services.ErrorCode(err) != services.CodeUnauthenticated {
		t.Errorf("the session of a login elsewhere, its row gone: %v, want UNAUTHENTICATED", err)
	}
}

// TestSessions_LanguageSwitchReachesCachedSessions: a session carries its user's e-mail
// language (orders queue their e-mail with it); two processes have the session cached
// with a long TTL, and a switch of language recorded in one is what both answer next
// (the cached sessions are dropped everywhere), while setting the same language again
// drops nothing.
func TestSessions_LanguageSwitchReachesCachedSessions(t *testing.T) {
	e := testenv.NewTestEnv(t, orders.Limits{})
	procs := twoProcesses(t, e)
	ctx := context.Background()
	uid := sessionUser(t, e, procs[0])
	tok, _ := procs[0].NewSession(ctx, uid)
	for _, p := range procs {
		u, err := p.Authenticate(ctx, tok)
		if err != nil || u.Lang != accounts.LangEn {
			t.Fatalf("session user %+v, %v: want lang %q", u, err, accounts.LangEn)
		}
	}
	if err := procs[0].SetLang(ctx, uid, accounts.LangZhHans); err != nil {
		t.Fatal(err)
	}
	for i, p := range procs {
		if !eventually(func() bool { u, err := p.Authenticate(ctx, tok); return err == nil && u.Lang == accounts.LangZhHans }) {
			t.Errorf("process %d still answers the old language from its cache", i)
		}
	}
	// the same language again writes nothing and drops nothing: the cached session
	// answers even with its row gone. procs[0] hears its own switch too, maybe after the
	// loop above cached the session again: wait for that message, then cache it again.
	heardEverything(t, e, procs)
	if _, err := procs[0].Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.Exec("DELETE FROM sessions WHERE user_id = ?", uid); err != nil {
		t.Fatal(err)
	}
	if err := procs[0].SetLang(ctx, uid, accounts.LangZhHans); err != nil {
		t.Fatal(err)
	}
	if u, err := procs[0].Authenticate(ctx, tok); err != nil || u.Lang != accounts.LangZhHans {
		t.Errorf("after an unchanged language: %+v, %v; want the cached session", u, err)
	}
}
