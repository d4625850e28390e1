// Command seatflow is the cinema seat-booking server and its tools:
//
//	seatflow serve     migrate, then serve HTTP and run the order-expiry worker
//	seatflow migrate   apply database migrations
//	seatflow seed      create the demo cinema and print the demo accounts' passwords
//	seatflow reconcile [--dry-run] [--show ID]
//	                   compare the seat cache with MySQL and repair the drift (a dry
//	                   run only reports), then print the run's summary
//	seatflow loadtest [flags]
//	                   drive the load-test scenarios against a running server or one it
//	                   starts, and write a report (README.md, "Load test")
//
// Configuration comes from SEATFLOW_* environment variables (see README.md).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"seatflow/services/demo"
	"seatflow/services/store"
	"seatflow/web"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "seatflow:", err)
		os.Exit(1)
	}
}

const usage = `usage: seatflow <command> [flags]

commands:
  serve       apply migrations, then serve HTTP on SEATFLOW_HTTP_ADDR with the expiry worker
  migrate     apply database migrations
  seed        create the demo cinema (idempotent) and print fresh demo passwords
  reconcile   [--dry-run] [--show ID] compare the seat cache with MySQL and repair the
              drift (--dry-run only reports; --show limits the run to one show); exits
              non-zero when the run failed or another run held the lease for 60 s
  reports-rebuild --from YYYY-MM-DD --to YYYY-MM-DD [--cinema ID]
              drop the sales rollup of those local days (after a repair of past orders
              or refunds); the next report covering them rolls them up afresh
  loadtest    [flags] start a server (or target -base URL), drive the flash-sale scenarios
              and the ceilings, audit MySQL and Redis, write report.md and plots to
              loadtest-results/<timestamp> (seatflow loadtest -h lists the flags)
`

func run(args []string) error {
	if len(args) == 0 {
		fmt.Print(usage)
		return fmt.Errorf("no command")
	}
	cfg, err := web.LoadConfig()
	if err != nil {
		return err
	}
	log := newLogger(cfg.LogLevel)
	slog.SetDefault(log)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "migrate":
		return withApp(cfg, log, func(a *web.App) error {
			n, err := a.Migrate(ctx)
			if err == nil {
				fmt.Printf("migrations applied: %d\n", n)
			}
			return err
		})
	case "seed":
		return withApp(cfg, log, func(a *web.App) error { return seed(ctx, a) })
	case "reconcile":
		opts, err := reconcileFlags(args[1:])
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		if err != nil {
			return err
		}
		return withApp(cfg, log, func(a *web.App) error { return runReconcile(ctx, a, opts) })
	case "reports-rebuild":
		opts, err := rebuildFlags(args[1:])
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		if err != nil {
			return err
		}
		return withApp(cfg, log, func(a *web.App) error { return runRebuild(ctx, a, opts) })
	case "serve":
		return serve(ctx, cfg, log)
	case "loadtest":
		return loadtestRun(ctx, cfg, args[1:])
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	}
	fmt.Print(usage)
	return fmt.Errorf("unknown command %q", args[0])
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// withApp builds the app, runs f and closes the stores.
func withApp(cfg web.Config, log *slog.Logger, f func(*web.App) error) error {
	if err := web.WaitForStores(context.Background(), cfg, log); err != nil {
		return err
	}
	a, err := web.New(cfg, nil, log)
	if err != nil {
		return err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = a.Shutdown(ctx)
	}()
	return f(a)
}

func seed(ctx context.Context, a *web.App) error {
	if _, err := a.Migrate(ctx); err != nil {
		return err
	}
	rep, err := demo.SeedDemo(ctx, a.DB, a.Users, demo.DemoOptions{
		Now: time.Now().UTC(), Zone: a.Cfg.Location(), Currency: a.Cfg.Currency, PurchaseLimit: a.Cfg.PurchaseLimit,
		SeatMaps: a.Seats, Chain: true,
	})
	if err != nil {
		return err
	}
	cinemas, err := store.Cinemas(ctx, a.DB)
	if err != nil {
		return err
	}
	for _, c := range cinemas {
		fmt.Printf("cinema %d: %s (%s, %s)\n", c.ID, c.Name, c.TimeZone, c.Currency)
	}
	fmt.Printf("demo seed created %d cinemas, %d halls, %d movies, %d shows, %d orders\n",
		rep.CinemasCreated, rep.HallsCreated, rep.MoviesCreated, rep.ShowsCreated, rep.OrdersCreated)
	fmt.Println("demo accounts (passwords are new on every seed):")
	for _, acc := range rep.Accounts {
		fmt.Printf("  %-9s %-28s %s\n", acc.Role, acc.Email, acc.Password)
	}
	return nil
}

func serve(ctx context.Context, cfg web.Config, log *slog.Logger) error {
	if err := web.WaitForStores(ctx, cfg, log); err != nil {
		return err
	}
	a, err := web.New(cfg, nil, log)
	if err != nil {
		return err
	}
	if _, err := a.Migrate(ctx); err != nil {
		return err
	}
	if cfg.PaymentWebhookSecret == "" {
		log.Warn("SEATFLOW_PAYMENT_WEBHOOK_SECRET is not set: webhooks are signed with a random secret of this process (fine for the demo provider, not for a real one or several processes)")
	}
	if cfg.TicketSecret == "" {
		log.Warn("SEATFLOW_TICKET_SECRET is not set: tickets are signed with a random secret of this process (their QR codes stop verifying after a restart and on other processes)")
	}
	errc := make(chan error, 1)
	go func() { errc <- a.Serve() }()
	addr := cfg.HTTPAddr
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	log.Info("seatflow serving", "url", "http://"+addr, "time_zone", cfg.TimeZone)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return a.Shutdown(sctx)
}
