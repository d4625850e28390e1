package orders

import (
	"context"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/store"
)

// Limits configures the rate limits (GCRA in Redis, go-redis/redis_rate). Rates are
// events per Period with a burst of Burst.
type Limits struct {
	UserPerMinute, UserBurst         int // order creations per user and show
	ShowPerSecond, ShowBurst         int // order creations per show
	LoginPerMinute, LoginBurst       int // logins per account email (canonical form)
	LoginIPPerMinute, LoginIPBurst   int // logins per client address
	RegisterPerMinute, RegisterBurst int // new accounts per client address
	ResetPerHour, ResetBurst         int // password reset e-mails asked for per account email (canonical form)
	ResetIPPerHour, ResetIPBurst     int // password reset requests per client address
}

// RateLimiter applies Limits: the order limits inside lua/order.lua (orderLimits), the
// others through redis_rate. Redis being unreachable is an UNAVAILABLE error, never
// "allow" (DESIGN.md, order pipeline step 3).
type RateLimiter struct {
	l      *redis_rate.Limiter
	limits Limits
	prefix string
}

// NewRateLimiter returns a limiter whose keys start with prefix.
func NewRateLimiter(rdb redis.UniversalClient, limits Limits, prefix string) *RateLimiter {
	return &RateLimiter{l: redis_rate.NewLimiter(rdb), limits: limits, prefix: prefix + ":rl:"}
}

// allow takes one event from the bucket key. Errors: RATE_LIMITED with RetryAfterS
// (whole seconds, at least 1), UNAVAILABLE.
func (r *RateLimiter) allow(ctx context.Context, key string, lim redis_rate.Limit, what string) error {
	if lim.Rate <= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	res, err := r.l.Allow(ctx, r.prefix+key, lim)
	if err != nil {
		return store.Unavailable("the rate limiter", err)
	}
	if res.Allowed == 0 {
		secs := int(math.Ceil(res.RetryAfter.Seconds()))
		if secs < 1 {
			secs = 1
		}
		return &services.Error{Code: services.CodeRateLimited, Message: "too many " + what + "; try again in a moment", RetryAfterS: secs}
	}
	return nil
}

// orderLimits is the order rate limits as lua/order.lua's ARGV[1] gives them: the
// buyer's burst, rate and period (seconds) for one show, then the show's. A create
// counts one event against each inside that script, with redis_rate's GCRA: the
// buyer's bucket is per show there, so that it shares the show's hash slot
// (invariant 9). A nil limiter, or a rate of 0, limits nothing.
func (r *RateLimiter) orderLimits() string {
	var l Limits
	if r != nil {
		l = r.limits
	}
	return strconv.Itoa(l.UserBurst) + "|" + strconv.Itoa(l.UserPerMinute) + "|60|" +
		strconv.Itoa(l.ShowBurst) + "|" + strconv.Itoa(l.ShowPerSecond) + "|1"
}

// AllowLogin counts one login attempt against two limits, and allows it only when both
// do: the account's, keyed on the canonical form of the email (CanonicalEmail, the form
// Users.Login looks up, so no other spelling of a locked-out account gets a fresh
// allowance), and the client address's (ip is the address the request came from), so
// that one client cannot try many accounts. Every attempt counts against both.
// Errors: INVALID_REQUEST (not a usable email address), RATE_LIMITED (the longer wait
// of the two), UNAVAILABLE.
func (r *RateLimiter) AllowLogin(ctx context.Context, email, ip string) error {
	return r.allowAccountAndIP(ctx, email, ip,
		accountLimit{"login:", redis_rate.Limit{Rate: r.limits.LoginPerMinute, Burst: r.limits.LoginBurst, Period: time.Minute}, "sign-in attempts for this account"},
		accountLimit{"login-ip:", redis_rate.Limit{Rate: r.limits.LoginIPPerMinute, Burst: r.limits.LoginIPBurst, Period: time.Minute}, "sign-in attempts from this address"})
}

// accountLimit is one of the two limits of allowAccountAndIP: its key prefix, its rate
// and what it counts (for the RATE_LIMITED message).
type accountLimit struct {
	prefix string
	limit  redis_rate.Limit
	what   string
}

// allowAccountAndIP counts one request against the account's limit (keyed on the
// canonical form of email) and the client address's (ip), and allows it only when both
// do; a refusal reports the longer wait of the two. Errors: INVALID_REQUEST (not a
// usable email address), RATE_LIMITED, UNAVAILABLE.
func (r *RateLimiter) allowAccountAndIP(ctx context.Context, email, ip string, account, client accountLimit) error {
	email, err := services.CanonicalEmail(email)
	if err != nil {
		return err
	}
	errAccount := r.allow(ctx, account.prefix+email, account.limit, account.what)
	if services.ErrorCode(errAccount) == services.CodeUnavailable {
		return errAccount
	}
	errIP := r.allow(ctx, client.prefix+ip, client.limit, client.what)
	if errIP == nil {
		return errAccount
	}
	var x, y *services.Error
	if errors.As(errAccount, &x) && errors.As(errIP, &y) && x.RetryAfterS >= y.RetryAfterS {
		return errAccount
	}
	return errIP
}

// AllowRegister counts one account registration against the client address's limit
// (ip is the address the request came from).
func (r *RateLimiter) AllowRegister(ctx context.Context, ip string) error {
	return r.allow(ctx, "register:"+ip, redis_rate.Limit{Rate: r.limits.RegisterPerMinute, Burst: r.limits.RegisterBurst, Period: time.Minute}, "new accounts from this address")
}

// AllowPasswordReset counts one password reset request against two limits, and allows
// it only when both do: the account's, keyed on the canonical form of email (so no
// other spelling gets a fresh allowance, and a mailbox cannot be flooded with links),
// and the client address's (ip), so that one client cannot send links to many
// addresses. Both count every request, for accounts that exist or not alike.
// Errors: INVALID_REQUEST (not a usable email address), RATE_LIMITED (the longer wait
// of the two), UNAVAILABLE.
func (r *RateLimiter) AllowPasswordReset(ctx context.Context, email, ip string) error {
	return r.allowAccountAndIP(ctx, email, ip,
		accountLimit{"reset:", redis_rate.Limit{Rate: r.limits.ResetPerHour, Burst: r.limits.ResetBurst, Period: time.Hour}, "password reset requests for this address"},
		accountLimit{"reset-ip:", redis_rate.Limit{Rate: r.limits.ResetIPPerHour, Burst: r.limits.ResetIPBurst, Period: time.Hour}, "password reset requests from this address"})
}
