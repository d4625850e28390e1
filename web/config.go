// Package web wires seatflow together: configuration, stores, services, the Fiber app,
// the asynq worker, and the order in which they start and stop.
package web

import (
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/url"
	"strings"
	"time"
	_ "time/tzdata" // the cinema's IANA zone works on machines without zoneinfo

	"github.com/caarlos0/env/v11"
	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/mail"
	"seatflow/services/store"
)

// Config is read from environment variables prefixed SEATFLOW_ (README lists them).
type Config struct {
	MySQLDSN string `env:"MYSQL_DSN" envDefault:"root@tcp(127.0.0.1:3306)/seatflow"`
	// MySQLMaxOpen and MySQLMaxIdle size the connection pool of one process (40 lets
	// three processes and a load generator share MariaDB's default 151 connections).
	MySQLMaxOpen int `env:"MYSQL_MAX_OPEN" envDefault:"40"`
	MySQLMaxIdle int `env:"MYSQL_MAX_IDLE" envDefault:"40"`
	// RedisAddr is one host:port (a single Redis node) or several, comma-separated (the
	// seed nodes of a Redis Cluster).
	RedisAddr     string `env:"REDIS_ADDR" envDefault:"127.0.0.1:6379"`
	RedisPassword string `env:"REDIS_PASSWORD"`
	// RedisDB is the database of a single node; a cluster must use 0.
	RedisDB int `env:"REDIS_DB" envDefault:"0"`
	// RedisCluster uses the cluster client even with a single seed address.
	RedisCluster bool `env:"REDIS_CLUSTER" envDefault:"false"`
	// AsynqRedisAddr is the single Redis node (host:port) that keeps asynq's queues;
	// empty: the Redis of RedisAddr, which a cluster does not allow (DESIGN.md "Redis
	// Cluster"). It uses RedisPassword and RedisDB.
	AsynqRedisAddr string `env:"ASYNQ_REDIS_ADDR"`
	KeyPrefix      string `env:"REDIS_KEY_PREFIX" envDefault:"sf"`
	HTTPAddr       string `env:"HTTP_ADDR" envDefault:":8080"`
	// OpsAddr serves /healthz, /readyz, /metrics and pprof on an address of their own
	// (e.g. 127.0.0.1:9090, for trusted networks only); empty: the main address serves
	// /healthz, /readyz and /metrics, and no pprof.
	OpsAddr string `env:"OPS_ADDR"`
	// StartupTimeout is how long start-up waits for MySQL and Redis to answer.
	StartupTimeout time.Duration `env:"STARTUP_TIMEOUT" envDefault:"60s"`
	TimeZone       string        `env:"TIME_ZONE" envDefault:"Asia/Shanghai"`
	Currency       string        `env:"CURRENCY" envDefault:"CNY"`
	// CinemaName is the cinema's name (the location of an order's calendar file).
	CinemaName    string `env:"CINEMA_NAME" envDefault:"seatflow"`
	HoldMinutes   int    `env:"HOLD_MINUTES" envDefault:"15"`
	PurchaseLimit int    `env:"PURCHASE_LIMIT" envDefault:"4"`
	// HoldSeconds, when above 0, replaces HoldMinutes (short holds for tests and demos).
	HoldSeconds int `env:"HOLD_SECONDS" envDefault:"0"`

	RateUserPerMinute     int `env:"RATE_USER_PER_MINUTE" envDefault:"10"`
	RateUserBurst         int `env:"RATE_USER_BURST" envDefault:"10"`
	RateShowPerSecond     int `env:"RATE_SHOW_PER_SECOND" envDefault:"500"`
	RateShowBurst         int `env:"RATE_SHOW_BURST" envDefault:"500"`
	RateLoginPerMinute    int `env:"RATE_LOGIN_PER_MINUTE" envDefault:"10"`
	RateLoginBurst        int `env:"RATE_LOGIN_BURST" envDefault:"10"`
	RateLoginIPPerMinute  int `env:"RATE_LOGIN_IP_PER_MINUTE" envDefault:"120"`
	RateLoginIPBurst      int `env:"RATE_LOGIN_IP_BURST" envDefault:"300"`
	RateRegisterPerMinute int `env:"RATE_REGISTER_PER_MINUTE" envDefault:"30"`
	RateRegisterBurst     int `env:"RATE_REGISTER_BURST" envDefault:"30"`
	// Password reset requests: per account email (a mailbox gets at most a few links
	// an hour) and per client address.
	RateResetPerHour   int `env:"RATE_RESET_PER_HOUR" envDefault:"5"`
	RateResetBurst     int `env:"RATE_RESET_BURST" envDefault:"5"`
	RateResetIPPerHour int `env:"RATE_RESET_IP_PER_HOUR" envDefault:"30"`
	RateResetIPBurst   int `env:"RATE_RESET_IP_BURST" envDefault:"30"`
	// PublicURL is the site's address as a browser reaches it: the start of the links
	// in e-mails (a password reset link). No trailing slash needed.
	PublicURL string `env:"PUBLIC_URL" envDefault:"http://127.0.0.1:8080"`

	PaymentWebhookSecret string `env:"PAYMENT_WEBHOOK_SECRET"`
	// StripeSecretKey (sk_...) and StripeWebhookSecret (the webhook endpoint's whsec_...)
	// turn on the Stripe provider (services/stripepay), the default for paying; both or
	// neither. StripeAPIBase replaces Stripe's API address (stripe-mock in tests).
	StripeSecretKey     string `env:"STRIPE_SECRET_KEY"`
	StripeWebhookSecret string `env:"STRIPE_WEBHOOK_SECRET"`
	StripeAPIBase       string `env:"STRIPE_API_BASE"`
	BcryptCost          int    `env:"BCRYPT_COST" envDefault:"10"`
	SecureCookies       bool   `env:"SECURE_COOKIES" envDefault:"false"`
	// LiveMaxViewers is how many live seat maps one process streams at once.
	LiveMaxViewers int `env:"LIVE_MAX_VIEWERS" envDefault:"10000"`
	// SessionIdle ends a session after this long without a request.
	SessionIdle time.Duration `env:"SESSION_IDLE" envDefault:"12h"`
	// SessionMaxAge ends a session this long after sign-in, whatever happens.
	SessionMaxAge time.Duration `env:"SESSION_MAX_AGE" envDefault:"168h"`
	// SessionCacheTTL is how long a process answers a session from memory before it asks
	// MySQL again (logout and role changes reach every process at once through Redis).
	// At most half of SessionIdle is used (an idle session must not live on in memory),
	// and never past the session's own end. A cache whose subscription broke starts
	// empty (messages may have been lost), so the TTL only bounds changes made to MySQL
	// behind the app's back; 10 minutes costs a waiting crowd's visitor one MySQL read
	// of their session per 10 minutes of polling.
	SessionCacheTTL time.Duration `env:"SESSION_CACHE_TTL" envDefault:"10m"`
	LogLevel        string        `env:"LOG_LEVEL" envDefault:"info"`
	// ExpiryCheckInterval is how often the asynq worker looks for due expiry tasks.
	ExpiryCheckInterval time.Duration `env:"EXPIRY_CHECK_INTERVAL" envDefault:"1s"`
	// TaskCheckInterval is how long an idle asynq worker waits (half of it plus up to
	// all of it again) before it looks for new tasks; a shutdown waits out that pause.
	TaskCheckInterval time.Duration `env:"TASK_CHECK_INTERVAL" envDefault:"1s"`
	// SalesRollupInterval is how often the past days' sales are rolled up for the reports
	// (jobs.AddSalesRollup).
	SalesRollupInterval time.Duration `env:"SALES_ROLLUP_INTERVAL" envDefault:"1h"`
	// ExpiryEnqueue is "sync" (the expiry task is enqueued before the order is
	// answered) or "async" (after it, by a few workers; reconciliation is the backstop).
	ExpiryEnqueue string `env:"EXPIRY_ENQUEUE" envDefault:"sync"`
	// CommitBatchMax is the most created orders one MySQL transaction commits (group
	// commit; 1: every order commits alone).
	CommitBatchMax int `env:"COMMIT_BATCH_MAX" envDefault:"64"`
	// CommitWait is how long a batch may wait for creates that are already between their
	// Redis hold and their commit (0: never waits; a batch takes what queued while the
	// batches before it committed).
	CommitWait time.Duration `env:"COMMIT_WAIT" envDefault:"2ms"`
	// CommitInFlight is how many batches commit at once (2 measured best on two cores:
	// BENCHMARKS.md).
	CommitInFlight int `env:"COMMIT_IN_FLIGHT" envDefault:"2"`
	// ReconcileInterval is how often reconciliation runs (one instance at a time).
	ReconcileInterval time.Duration `env:"RECONCILE_INTERVAL" envDefault:"1m"`
	// ReconcileGrace is how old a hold without a live order must be before
	// reconciliation releases it.
	ReconcileGrace time.Duration `env:"RECONCILE_GRACE" envDefault:"60s"`
	// AllowEviction lets /readyz pass with a Redis maxmemory-policy other than
	// noeviction (development only: an evicted seat map or task is drift).
	AllowEviction bool `env:"ALLOW_EVICTION" envDefault:"false"`
	// DemoPayments turns on the built-in demo payment provider (development and tests
	// only: anyone can approve its payments); off, paying needs a real provider.
	DemoPayments bool `env:"DEMO_PAYMENTS" envDefault:"false"`
	// TicketSecret signs the ticket references in the tickets' QR codes; empty: a
	// random secret per process (tickets then stop verifying after a restart).
	TicketSecret string `env:"TICKET_SECRET"`
	// AdmissionSecret signs the waiting rooms' admission tokens; every instance behind
	// one address must share it. Empty: a random secret per process (one instance only).
	AdmissionSecret string `env:"ADMISSION_SECRET"`
	// SMTPURL is where e-mails go: smtp://user:pass@host:587?tls=starttls|tls|none
	// (services/mail.ParseSMTPURL). Empty: e-mails are held in the outbox and shown in
	// the development mailbox, /admin/mailbox.
	SMTPURL string `env:"SMTP_URL"`
	// MailFrom is the e-mails' From address.
	MailFrom string `env:"MAIL_FROM" envDefault:"seatflow <no-reply@seatflow.localhost>"`
}

// LogValue is the configuration as logs show it: the DSN's password, the Redis
// password, the webhook, Stripe, ticket and admission secrets hidden.
func (c Config) LogValue() slog.Value {
	c.MySQLDSN = store.RedactDSN(c.MySQLDSN)
	if c.RedisPassword != "" {
		c.RedisPassword = "xxxxx"
	}
	if c.PaymentWebhookSecret != "" {
		c.PaymentWebhookSecret = "xxxxx"
	}
	if c.StripeSecretKey != "" {
		c.StripeSecretKey = "xxxxx"
	}
	if c.StripeWebhookSecret != "" {
		c.StripeWebhookSecret = "xxxxx"
	}
	if c.TicketSecret != "" {
		c.TicketSecret = "xxxxx"
	}
	if c.AdmissionSecret != "" {
		c.AdmissionSecret = "xxxxx"
	}
	if c.SMTPURL != "" {
		c.SMTPURL = redactURL(c.SMTPURL)
	}
	type plain Config // without this method
	return slog.AnyValue(plain(c))
}

// LoadConfig reads Config from the environment. Errors name the variable at fault.
func LoadConfig() (Config, error) {
	cfg, err := env.ParseAsWithOptions[Config](env.Options{Prefix: "SEATFLOW_"})
	if err != nil {
		return cfg, err
	}
	return cfg, cfg.validate()
}

func (c Config) validate() error {
	if err := c.validateRedis(); err != nil {
		return err
	}
	if _, err := time.LoadLocation(c.TimeZone); err != nil {
		return fmt.Errorf("SEATFLOW_TIME_ZONE %q: %w", c.TimeZone, err)
	}
	if len(c.Currency) != 3 {
		return fmt.Errorf("SEATFLOW_CURRENCY %q is not a 3-letter code", c.Currency)
	}
	if c.HoldMinutes < 1 || c.HoldMinutes > 24*60 {
		return fmt.Errorf("SEATFLOW_HOLD_MINUTES %d is not within 1..1440", c.HoldMinutes)
	}
	if c.ReconcileInterval < time.Second {
		return fmt.Errorf("SEATFLOW_RECONCILE_INTERVAL %s is shorter than 1s", c.ReconcileInterval)
	}
	if c.ReconcileGrace < 15*time.Second {
		return fmt.Errorf("SEATFLOW_RECONCILE_GRACE %s is shorter than 15s (an order's create transaction may still be in flight)", c.ReconcileGrace)
	}
	if c.HoldSeconds < 0 || c.HoldSeconds > 24*3600 {
		return fmt.Errorf("SEATFLOW_HOLD_SECONDS %d is not within 0..86400", c.HoldSeconds)
	}
	if c.PurchaseLimit < 1 || c.PurchaseLimit > 100 {
		return fmt.Errorf("SEATFLOW_PURCHASE_LIMIT %d is not within 1..100", c.PurchaseLimit)
	}
	if c.ExpiryEnqueue != "sync" && c.ExpiryEnqueue != "async" {
		return fmt.Errorf("SEATFLOW_EXPIRY_ENQUEUE %q is neither sync nor async", c.ExpiryEnqueue)
	}
	if c.SMTPURL != "" {
		if _, err := mail.ParseSMTPURL(c.SMTPURL); err != nil {
			return err
		}
	}
	if _, err := netmail.ParseAddress(c.MailFrom); err != nil {
		return fmt.Errorf("SEATFLOW_MAIL_FROM %q is not an e-mail address", c.MailFrom)
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("SEATFLOW_PUBLIC_URL %q is not an http(s) address", c.PublicURL)
	}
	if (c.StripeSecretKey == "") != (c.StripeWebhookSecret == "") {
		return fmt.Errorf("SEATFLOW_STRIPE_SECRET_KEY and SEATFLOW_STRIPE_WEBHOOK_SECRET go together: set both or neither")
	}
	if u, err := url.Parse(c.StripeAPIBase); c.StripeAPIBase != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return fmt.Errorf("SEATFLOW_STRIPE_API_BASE %q is not an http(s) address", c.StripeAPIBase)
	}
	if c.MySQLMaxOpen < 1 || c.LiveMaxViewers < 0 {
		return fmt.Errorf("SEATFLOW_MYSQL_MAX_OPEN must be at least 1 and SEATFLOW_LIVE_MAX_VIEWERS not negative")
	}
	return nil
}

// validateRedis checks SEATFLOW_REDIS_ADDR, SEATFLOW_REDIS_DB and
// SEATFLOW_ASYNQ_REDIS_ADDR together.
func (c Config) validateRedis() error {
	conn, err := c.Redis()
	if err != nil {
		return fmt.Errorf("SEATFLOW_REDIS_ADDR %q: %w", c.RedisAddr, err)
	}
	if err := conn.Validate(); err != nil {
		return fmt.Errorf("SEATFLOW_REDIS_DB with SEATFLOW_REDIS_ADDR %q: %w: set SEATFLOW_REDIS_DB=0", c.RedisAddr, err)
	}
	if conn.IsCluster() && strings.TrimSpace(c.AsynqRedisAddr) == "" {
		return fmt.Errorf("SEATFLOW_ASYNQ_REDIS_ADDR is needed with a Redis Cluster (SEATFLOW_REDIS_ADDR %q): asynq keeps its queues on a single Redis node (host:port) of its own", c.RedisAddr)
	}
	if a := strings.TrimSpace(c.AsynqRedisAddr); a != "" {
		addrs, err := store.ParseRedisAddrs(a)
		if err != nil || len(addrs) != 1 {
			return fmt.Errorf("SEATFLOW_ASYNQ_REDIS_ADDR %q is not one host:port", c.AsynqRedisAddr)
		}
	}
	return nil
}

// Redis is how to reach the app's Redis (a single node or a cluster), without pool
// sizes or timeouts. Errors: an address that is not host:port.
func (c Config) Redis() (store.RedisConn, error) {
	addrs, err := store.ParseRedisAddrs(c.RedisAddr)
	if err != nil {
		return store.RedisConn{}, err
	}
	return store.RedisConn{Addrs: addrs, Password: c.RedisPassword, DB: c.RedisDB, Cluster: c.RedisCluster}, nil
}

// AsynqRedis is the single Redis node asynq keeps its queues on, and whether it is a
// node of its own (SEATFLOW_ASYNQ_REDIS_ADDR) rather than the app's Redis.
func (c Config) AsynqRedis() (opts *redis.Options, separate bool) {
	if a := strings.TrimSpace(c.AsynqRedisAddr); a != "" {
		return &redis.Options{Addr: a, Password: c.RedisPassword, DB: c.RedisDB}, true
	}
	return nil, false
}

// HoldFor is how long a pending order keeps its seats: HoldSeconds when set, else
// HoldMinutes.
func (c Config) HoldFor() time.Duration {
	if c.HoldSeconds > 0 {
		return time.Duration(c.HoldSeconds) * time.Second
	}
	return time.Duration(c.HoldMinutes) * time.Minute
}

// FirstCinema is the cinema an install without one gets when it is migrated: named
// CinemaName, in TimeZone, pricing in Currency (the settings are its defaults only).
func (c Config) FirstCinema() services.Cinema {
	return services.Cinema{Name: c.CinemaName, TimeZone: c.TimeZone, Currency: c.Currency}
}

// Location returns the cinema's time zone (validated by LoadConfig).
func (c Config) Location() *time.Location {
	loc, err := time.LoadLocation(c.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// redactURL is u with its password replaced by xxxxx (u itself when it does not parse).
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable)"
	}
	return p.Redacted()
}
