package web

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/gofiber/fiber/v2/middleware/pprof"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// opsSeparate reports whether the operations endpoints have an address of their own
// (SEATFLOW_OPS_ADDR set and not the main address).
func (a *App) opsSeparate() bool {
	return a.Cfg.OpsAddr != "" && a.Cfg.OpsAddr != a.Cfg.HTTPAddr
}

// registerOps adds /healthz, /readyz and /metrics to r, and the pprof profiles under
// /debug/pprof when withPprof (only on a separate operations address: profiles are
// never served on the public one).
func (a *App) registerOps(r *fiber.App, withPprof bool) {
	if withPprof {
		r.Use(pprof.New())
	}
	r.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok") })
	r.Get("/readyz", a.ready)
	r.Get("/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(a.Registry, promhttp.HandlerOpts{})))
}

// newOpsHTTP is the app of the operations address: health, readiness, metrics, pprof.
func (a *App) newOpsHTTP() *fiber.App {
	app := fiber.New(fiber.Config{
		AppName: "seatflow-ops", DisableStartupMessage: true,
		ReadTimeout: 15 * time.Second, WriteTimeout: 60 * time.Second, // a CPU profile takes 30 s
	})
	a.registerOps(app, true)
	return app
}

// ready answers 200 "ready" only when MySQL and Redis both answer (and Redis will not
// evict), else 503 naming the store; the cause goes to the log, never to the caller.
func (a *App) ready(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
	defer cancel()
	if err := a.DB.PingContext(ctx); err != nil {
		a.Log.Warn("readiness: mysql does not answer", "err", err)
		return c.Status(fiber.StatusServiceUnavailable).SendString("mysql: not answering")
	}
	if err := a.Redis.Ping(ctx).Err(); err != nil {
		a.Log.Warn("readiness: redis does not answer", "err", err)
		return c.Status(fiber.StatusServiceUnavailable).SendString("redis: not answering")
	}
	if a.AsynqRedis != a.Redis {
		if err := a.AsynqRedis.Ping(ctx).Err(); err != nil {
			a.Log.Warn("readiness: asynq's redis does not answer", "err", err)
			return c.Status(fiber.StatusServiceUnavailable).SendString("asynq redis: not answering")
		}
	}
	if problem := a.eviction.problem(ctx); problem != "" {
		return c.Status(fiber.StatusServiceUnavailable).SendString("redis: " + problem)
	}
	return c.SendString("ready")
}
