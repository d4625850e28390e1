package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/hibiken/asynq"
	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"seatflow/handlers"
	"seatflow/jobs"
	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/services/audit"
	"seatflow/services/catalog"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/reconcile"
	"seatflow/services/reports"
	"seatflow/services/seats"
	"seatflow/services/staff"
	"seatflow/services/store"
	"seatflow/services/stripepay"
	"seatflow/services/vouchers"
	"seatflow/services/waitingroom"
	"seatflow/services/waitlist"
	"seatflow/static"
	"seatflow/views"
)

// App is one seatflow process: its stores, services, HTTP app and asynq worker.
type App struct {
	Cfg Config
	DB  *sqlx.DB
	// Redis is the app's Redis: one node, or a Redis Cluster (SEATFLOW_REDIS_ADDR).
	Redis redis.UniversalClient
	// AsynqRedis is the single node asynq keeps its queues on: Redis itself unless
	// SEATFLOW_ASYNQ_REDIS_ADDR names a node of its own.
	AsynqRedis redis.UniversalClient
	HTTP       *fiber.App
	// Ops serves /healthz, /readyz, /metrics and pprof on SEATFLOW_OPS_ADDR; nil when
	// the main address serves them (without pprof).
	Ops     *fiber.App
	Catalog *catalog.Catalog
	// CatalogWriter is the catalog's write side: the console, the admin API and the
	// publish job share it.
	CatalogWriter *catalog.CatalogWriter
	Seats         *seats.SeatStore
	Shows         *seats.Listing
	Users         *accounts.Users
	// Resets e-mail password reset links and use them.
	Resets   *accounts.Resets
	Orders   *orders.Orders
	Payments *orders.Payments
	// Reconciler compares the seat cache with MySQL and repairs drift.
	Reconciler *reconcile.Reconciler
	// Instances is this instance in the registry of live instances (its heartbeat).
	Instances *store.Instances
	// Audit records every staff and admin write.
	Audit    *audit.Audit
	Limiter  *orders.RateLimiter
	Metrics  *services.Metrics
	Registry *prometheus.Registry
	Log      *slog.Logger

	asynqClient *asynq.Client
	inspector   *asynq.Inspector
	expiryQueue *jobs.ExpiryQueue // the order expiry tasks, for Orders, the Reconciler and the console
	worker      *asynq.Server
	scheduler   *jobs.Scheduler
	eviction    evictionCheck
	// SeatEvents fans seat changes out to the live seat maps of this process.
	SeatEvents *seats.SeatEvents
	// sessions caches token -> user and listens for logouts of other processes.
	sessions       *accounts.SessionCache
	stopBackground context.CancelFunc
	asyncExpiry    *orders.AsyncExpiry // nil unless SEATFLOW_EXPIRY_ENQUEUE=async
	dashboard      *staff.Dashboard
	// Rooms are the shows' waiting rooms; roomMoves tells this process's queue event
	// streams of a move; their ticker advances the rooms once a second.
	Rooms *waitingroom.Rooms
	// Waitlist serves the waiting lists of sold-out shows (a runner per process).
	Waitlist  *waitlist.Lists
	roomMoves *waitingroom.Moves
	// Mail hands the outbox's due e-mails to delivery (Nudge after a commit that queued
	// some); mailbox is the development mailbox; mailDeliverer is nil without SMTP.
	Mail          *mail.Dispatcher
	mailbox       *mail.Mailbox
	mailDeliverer *mail.Deliverer
	mailTo        string // where mails go, for the start-up log line
	mailSecrets   *mail.Secrets
	tickets       *orders.Tickets
	background    context.Context // ends with stopBackground
}

// New opens MySQL and Redis and builds every service; it starts nothing. clock may be
// nil (the system clock).
func New(cfg Config, clock services.Clock, log *slog.Logger) (*App, error) {
	if clock == nil {
		clock = services.SystemClock{}
	}
	if log == nil {
		log = slog.Default()
	}
	db, err := store.OpenDB(cfg.MySQLDSN, store.Pool{MaxOpen: cfg.MySQLMaxOpen, MaxIdle: cfg.MySQLMaxIdle})
	if err != nil {
		return nil, err
	}
	conn, err := cfg.Redis()
	if err != nil {
		return nil, fmt.Errorf("SEATFLOW_REDIS_ADDR: %w", err)
	}
	conn.PoolSize, conn.DialTimeout, conn.ReadTimeout, conn.WriteTimeout = 64, 2*time.Second, 3*time.Second, 3*time.Second
	rdb, err := store.NewRedis(conn)
	if err != nil {
		return nil, err
	}
	qrdb := rdb // asynq's queues: the same Redis, or a single node of their own
	if opts, separate := cfg.AsynqRedis(); separate {
		opts.PoolSize, opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 16, 2*time.Second, 3*time.Second, 3*time.Second
		qrdb = redis.NewClient(opts)
	} else if conn.IsCluster() {
		return nil, errors.New("SEATFLOW_ASYNQ_REDIS_ADDR is needed with a Redis Cluster")
	}
	a := &App{Cfg: cfg, DB: db, Redis: rdb, AsynqRedis: qrdb, Log: log, Metrics: services.NewMetrics(), Registry: prometheus.NewRegistry()}
	if err := a.Metrics.Register(a.Registry); err != nil {
		return nil, err
	}
	a.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	secret := []byte(cfg.PaymentWebhookSecret)
	if len(secret) == 0 {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		secret = []byte(hex.EncodeToString(b))
		log.Debug("SEATFLOW_PAYMENT_WEBHOOK_SECRET is not set; using a random secret for this process")
	}
	a.Catalog = catalog.NewCatalog(db).WithClock(clock)
	a.Audit = audit.NewAudit(db, clock)
	a.Seats = seats.NewSeatStore(rdb, db, a.Catalog, cfg.KeyPrefix)
	a.Shows = seats.NewListing(db, a.Catalog, a.Seats, clock, cfg.Location())
	a.sessions = accounts.NewSessionCache(rdb, cfg.KeyPrefix, min(cfg.SessionCacheTTL, cfg.SessionIdle/2), log)
	a.Users = accounts.NewUsers(db, clock, cfg.BcryptCost).WithSessions(
		accounts.SessionPolicy{Idle: cfg.SessionIdle, MaxAge: cfg.SessionMaxAge}, a.sessions)
	var bg context.Context
	bg, a.stopBackground = context.WithCancel(context.Background())
	a.background = bg
	go a.sessions.Run(bg)
	go catalog.NewHallChanges(rdb, cfg.KeyPrefix, a.Catalog, log).Run(bg)
	a.SeatEvents = seats.NewSeatEvents(rdb, cfg.KeyPrefix, cfg.LiveMaxViewers, log)
	a.Limiter = orders.NewRateLimiter(rdb, orders.Limits{
		UserPerMinute: cfg.RateUserPerMinute, UserBurst: cfg.RateUserBurst,
		ShowPerSecond: cfg.RateShowPerSecond, ShowBurst: cfg.RateShowBurst,
		LoginPerMinute: cfg.RateLoginPerMinute, LoginBurst: cfg.RateLoginBurst,
		LoginIPPerMinute: cfg.RateLoginIPPerMinute, LoginIPBurst: cfg.RateLoginIPBurst,
		RegisterPerMinute: cfg.RateRegisterPerMinute, RegisterBurst: cfg.RateRegisterBurst,
		ResetPerHour: cfg.RateResetPerHour, ResetBurst: cfg.RateResetBurst,
		ResetIPPerHour: cfg.RateResetIPPerHour, ResetIPBurst: cfg.RateResetIPBurst,
	}, cfg.KeyPrefix)
	// reset links are sealed in the outbox under a key derived from the ticket secret
	if a.mailSecrets, err = mail.NewSecrets([]byte(cfg.TicketSecret)); err != nil {
		return nil, err
	}
	a.Resets = accounts.NewResets(a.Users, a.Limiter, a.mailSecrets, cfg.PublicURL)
	a.asynqClient = asynq.NewClientFromRedisClient(qrdb)
	a.inspector = asynq.NewInspectorFromRedisClient(qrdb)
	a.expiryQueue = jobs.NewExpiryQueue(a.asynqClient, a.inspector)
	queue := a.expiryQueue
	var expiry orders.ExpiryScheduler = queue
	if cfg.ExpiryEnqueue == "async" {
		a.asyncExpiry = orders.NewAsyncExpiry(queue, 4, 4096, a.Metrics, log)
		expiry = a.asyncExpiry
	}
	a.Orders = orders.NewOrders(db, a.Catalog, a.Seats, a.Limiter, clock, orders.OrdersConfig{
		HoldFor: cfg.HoldFor(), Metrics: a.Metrics,
		Expiry: expiry, Logger: log, Zone: cfg.Location(), HallMaps: a.Shows,
		GroupCommit: orders.GroupCommit{MaxOrders: cfg.CommitBatchMax, MaxWait: cfg.CommitWait, InFlight: cfg.CommitInFlight},
	})
	// cached seat maps and best-available's snapshot follow every process's changes
	a.Waitlist = waitlist.NewLists(db, a.Orders, log)
	mirrors := seats.NewSeatMirrors(a.SeatEvents.Sync)
	a.Shows.SetMirrors(mirrors)
	a.SeatEvents.OnChange(func(c seats.SeatChange) {
		mirrors.Apply(c) // before the version moves: a read at the new version sees it
		a.Seats.Changed(c.ShowID)
		a.Orders.SeatsChanged(c)
		a.Waitlist.SeatsChanged(c) // seats that came back go to a waiting list first
	})
	// a process hears a show's changes while it serves a cache of its seat map or a
	// waiting list of it, or a viewer watches it (one shard subscription per show)
	a.Seats.SetFollow(a.SeatEvents.Follow)
	a.Waitlist.SetFollow(a.SeatEvents.Follow)
	go a.Waitlist.Run(bg)
	go a.SeatEvents.Run(bg)
	a.Instances = startInstance(bg, rdb, cfg.KeyPrefix, log) // startup.go
	a.Reconciler = reconcile.NewReconciler(db, a.Catalog, a.Seats, a.Orders, clock, reconcile.ReconcileConfig{
		Grace: cfg.ReconcileGrace, Tasks: queue, Metrics: a.Metrics, Logger: log,
		Lease: store.NewLease(rdb, cfg.KeyPrefix, "reconcile", 30*time.Second), Instances: a.Instances,
	})
	tokens := waitingroom.NewTokens([]byte(cfg.AdmissionSecret), func(reason string) {
		a.Metrics.RoomTokenRefusals.WithLabelValues(reason).Inc()
	})
	if cfg.AdmissionSecret == "" {
		log.Debug("SEATFLOW_ADMISSION_SECRET is not set; admission tokens work on this instance only")
	}
	a.Rooms = waitingroom.NewRooms(rdb, cfg.KeyPrefix, a.Catalog, clock, tokens, a.Metrics).Durable(db, log)
	a.Orders.SetAdmission(tokens)
	a.roomMoves = waitingroom.NewMoves(rdb, cfg.KeyPrefix, log)
	a.roomMoves.Also(a.Rooms.Told)
	go a.roomMoves.Run(bg)
	go waitingroom.NewTicker(a.Rooms, a.Seats, a.Metrics, log).Run(bg)
	a.scheduler = jobs.NewScheduler(a.Reconciler, a.Orders, cfg.ReconcileInterval, log)
	go a.Instances.Run(bg, a.faultSeen) // startup.go
	a.CatalogWriter = catalog.NewCatalogWriter(db, a.Catalog, a.Shows, a.Audit, clock,
		catalog.WriterConfig{Currency: cfg.Currency, DefaultLimit: cfg.PurchaseLimit, Zone: cfg.Location()})
	a.scheduler.AddPublish(a.CatalogWriter, time.Minute, catalog.PublishAhead, log)
	a.scheduler.AddSalesRollup(reports.New(db, clock), cfg.SalesRollupInterval, log)
	views.SetTicketTypeSource(a.Catalog.TicketTypes) // names and door notes of ticket types on pages and e-mails
	a.eviction = evictionCheck{rdb: rdb, queues: qrdb, allow: cfg.AllowEviction, log: log}
	var providers []orders.PaymentProvider // the first is the default
	if cfg.StripeSecretKey != "" {
		providers = append(providers, stripepay.New(stripepay.Config{SecretKey: cfg.StripeSecretKey,
			WebhookSecret: cfg.StripeWebhookSecret, APIBase: cfg.StripeAPIBase, PublicURL: cfg.PublicURL}))
	}
	if cfg.DemoPayments {
		providers = append(providers, orders.DemoProvider{})
	}
	a.Payments = orders.NewPayments(db, a.Orders, clock, secret, providers...)
	a.tickets = orders.NewTickets([]byte(cfg.TicketSecret)).WithCodes(db, clock) // empty secret: a random one of this process
	if a.mailTo, err = a.newMail(clock); err != nil {
		return nil, err
	}
	a.worker = asynq.NewServerFromRedisClient(qrdb, asynq.Config{
		Concurrency: 4, Queues: map[string]int{jobs.Queue: 1},
		DelayedTaskCheckInterval: cfg.ExpiryCheckInterval,
		TaskCheckInterval:        cfg.TaskCheckInterval,
		Logger:                   asynqLogger{log}, LogLevel: asynq.WarnLevel,
		ShutdownTimeout: 5 * time.Second,
		RetryDelayFunc:  jobs.RetryDelay(mail.RetryDelay),
	})
	a.dashboard = staff.NewDashboard(db, clock, cfg.Location())
	a.HTTP = a.newHTTP()
	if a.opsSeparate() {
		a.Ops = a.newOpsHTTP()
	}
	return a, nil
}

func (a *App) newHTTP() *fiber.App {
	app := fiber.New(fiber.Config{
		AppName:               "seatflow",
		DisableStartupMessage: true,
		ErrorHandler:          errorHandler,
		BodyLimit:             handlers.MaxLayoutBodyBytes, // a larger body is refused before it is read in full; bodyLimit takes most routes down to MaxBodyBytes
		ReadBufferSize:        readBufferBytes,             // headers up to maxHeaderBytes, and room to say so beyond
		ReadTimeout:           15 * time.Second,
		WriteTimeout:          15 * time.Second,
		IdleTimeout:           60 * time.Second,
	})
	app.Server().HeaderReceived = liveWriteTimeout
	app.Use(recover.New())
	app.Use(securityHeaders(a.Cfg.SecureCookies))
	app.Use(headerLimit)
	app.Use(bodyLimit)
	if a.opsSeparate() {
		app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok") }) // load balancers ask here
	} else {
		a.registerOps(app, false)
	}
	app.Use("/static", filesystem.New(filesystem.Config{Root: http.FS(static.FS), MaxAge: 3600}))
	staffOrders := staff.NewStaffOrders(a.DB, a.Orders, a.Payments, a.Shows, a.Audit)
	door := staff.NewDoor(a.DB, a.Orders, a.tickets, a.Audit, a.Shows.Zone())
	d := &handlers.Deps{
		SharedDeps: handlers.SharedDeps{Shows: a.Shows, Cinemas: a.Shows, TicketTypes: a.Catalog, Users: a.Users, Clock: a.Orders.Clock(), SecureCookies: a.Cfg.SecureCookies,
			Rooms: a.Rooms, Waitlist: a.Waitlist},
		BuyerDeps: handlers.BuyerDeps{Orders: a.Orders, Payments: a.Payments, Limiter: a.Limiter, Tickets: a.tickets, Resets: a.Resets},
		APIDeps:   handlers.APIDeps{Moves: a.roomMoves},
		PageDeps: handlers.PageDeps{CinemaName: a.Cfg.CinemaName, Live: a.SeatEvents, SessionMaxAge: a.Users.SessionMaxAge(),
			Admission: a.Rooms.Tokens()},
		StaffDeps: handlers.StaffDeps{Catalog: a.CatalogWriter, Prices: a.CatalogWriter, StaffOrders: staffOrders,
			UserAdmin: accounts.NewUserAdmin(a.DB, a.Audit, a.Users.UserChanged), Audit: a.Audit, Reconcile: a.Reconciler,
			ShowSeats: staff.NewShowSeats(a.DB, a.Orders, a.Audit, a.Cfg.ReconcileGrace),
			Door:      door, Scopes: staff.NewCinemaScopes(a.DB, door),
			Vouchers: vouchers.New(a.DB, a.Catalog, a.Audit, a.Orders.Clock()), Reports: reports.New(a.DB, a.Orders.Clock()),
			BoxOffice: staff.NewBoxOffice(a.DB, a.Orders, a.Audit), Shifts: staff.NewShifts(a.DB, a.Catalog, a.Audit, a.Orders.Clock())},
		ConsoleDeps: handlers.ConsoleDeps{Currency: a.Cfg.Currency, Dashboard: a.dashboard, ExpiryQueue: a.expiryQueue, Mailbox: a.mailbox},
	}
	app.Use(handlers.Lang(a.Cfg.SecureCookies, d.SaveLang)) // the moviegoer pages' language; console and API stay English
	app.Use(handlers.DemoPayments(a.Cfg.DemoPayments))
	app.Use(d.Authenticate)
	// CSRF for the browser's forms, after Authenticate so the 403 page shows who is
	// signed in; its tokens live in Redis so a form posts to any process.
	csrfKey := func(token string) string { return a.Cfg.KeyPrefix + ":csrf:" + token }
	redisCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 2*time.Second)
	}
	app.Use(d.CSRF(handlers.CSRFStorage{
		GetFunc: func(token string) ([]byte, error) {
			ctx, cancel := redisCtx()
			defer cancel()
			b, err := a.Redis.Get(ctx, csrfKey(token)).Bytes()
			if errors.Is(err, redis.Nil) {
				return nil, nil
			}
			return b, err
		},
		SetFunc: func(token string, val []byte, exp time.Duration) error {
			ctx, cancel := redisCtx()
			defer cancel()
			return a.Redis.Set(ctx, csrfKey(token), val, exp).Err()
		},
		DeleteFunc: func(token string) error {
			ctx, cancel := redisCtx()
			defer cancel()
			return a.Redis.Del(ctx, csrfKey(token)).Err()
		},
	}))
	d.Routes(app) // handlers/routes.go: every API route, page and console page
	return app
}

// Migrate creates the database when missing and applies pending migrations.
func (a *App) Migrate(ctx context.Context) (int, error) {
	if err := store.EnsureDatabase(ctx, a.Cfg.MySQLDSN); err != nil {
		return 0, fmt.Errorf("create database: %w", err)
	}
	return store.Migrate(ctx, a.DB, a.Cfg.FirstCinema())
}

// StartWorker starts the in-process asynq worker (order expiry, e-mail delivery) and
// the mail dispatcher.
func (a *App) StartWorker() error {
	mux := jobs.NewMux(a.Orders)
	if a.mailDeliverer != nil {
		jobs.HandleMail(mux, a.mailDeliverer)
	}
	if err := a.worker.Start(mux); err != nil {
		return err
	}
	go a.Mail.Run(a.background)
	return nil
}

// StartScheduler starts the periodic work: reconciliation every
// SEATFLOW_RECONCILE_INTERVAL (and once now), the seat-sync retries and the loading of
// seat maps ahead of a sale.
func (a *App) StartScheduler() { a.scheduler.Start() }

// Serve checks the Redis eviction policy, starts the worker and the scheduler, and
// serves HTTP on cfg.HTTPAddr until Shutdown.
func (a *App) Serve() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	a.eviction.problem(ctx) // read at start: logged, and /readyz reports it
	cancel()
	a.Log.Info("e-mail: " + a.mailTo)
	if err := a.StartWorker(); err != nil {
		return err
	}
	a.StartScheduler()
	if a.Ops != nil {
		ln, err := net.Listen("tcp", a.Cfg.OpsAddr)
		if err != nil {
			return fmt.Errorf("operations address %s: %w", a.Cfg.OpsAddr, err)
		}
		go func() {
			if err := a.Ops.Listener(ln); err != nil {
				a.Log.Error("operations address stopped", "addr", a.Cfg.OpsAddr, "err", err)
			}
		}()
	}
	ln, err := net.Listen("tcp", a.Cfg.HTTPAddr)
	if err != nil {
		return err
	}
	err = a.HTTP.Listener(Lingering(ln))
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops in order: HTTP (waiting for requests in flight), the asynq worker,
// the scheduler (cancelling a reconciliation run in progress), the asynq client and
// inspector, then Redis and MySQL.
func (a *App) Shutdown(ctx context.Context) error {
	a.SeatEvents.Close() // live streams end, so the HTTP server can drain
	errs := []error{a.HTTP.ShutdownWithContext(ctx)}
	if a.Ops != nil {
		errs = append(errs, a.Ops.ShutdownWithContext(ctx))
	}
	if a.asyncExpiry != nil {
		a.asyncExpiry.Close(ctx)
	}
	a.worker.Shutdown()
	a.scheduler.Stop(ctx)
	// the asynq client and inspector share a.AsynqRedis: their Close only says so, and
	// the app closes the connection pools itself
	_ = a.asynqClient.Close()
	_ = a.inspector.Close()
	a.stopBackground()
	if a.AsynqRedis != a.Redis {
		errs = append(errs, a.AsynqRedis.Close())
	}
	errs = append(errs, a.Redis.Close(), a.DB.Close())
	return errors.Join(errs...)
}

// asynqLogger sends asynq's log lines to slog.
type asynqLogger struct{ l *slog.Logger }

func (g asynqLogger) Debug(args ...any) { g.l.Debug(fmt.Sprint(args...), "component", "asynq") }
func (g asynqLogger) Info(args ...any)  { g.l.Info(fmt.Sprint(args...), "component", "asynq") }
func (g asynqLogger) Warn(args ...any)  { g.l.Warn(fmt.Sprint(args...), "component", "asynq") }
func (g asynqLogger) Error(args ...any) { g.l.Error(fmt.Sprint(args...), "component", "asynq") }
func (g asynqLogger) Fatal(args ...any) { g.l.Error(fmt.Sprint(args...), "component", "asynq") }
