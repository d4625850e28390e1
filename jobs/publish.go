package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"
)

// Publisher loads the seat maps of sales about to open into the seat cache;
// services.CatalogWriter implements it.
type Publisher interface {
	PreloadOpeningSales(ctx context.Context, ahead time.Duration) (int, error)
}

// AddPublish schedules the publishing ahead of the sale: every interval (a minute in
// production) p loads the seat maps of the shows whose sale opens within ahead, so the
// first buyers of a flash sale do not wait for a load. Like the other jobs it is wrapped
// in SkipIfStillRunning (outermost) and Recover. Loading is idempotent and each process
// may do it: no lease. Call before Start.
func (s *Scheduler) AddPublish(p Publisher, interval, ahead time.Duration, log *slog.Logger) {
	cl := cronLogger{log}
	job := cron.NewChain(cron.SkipIfStillRunning(cl), cron.Recover(cl)).Then(cron.FuncJob(func() {
		ctx, cancel := context.WithTimeout(s.ctx, interval)
		defer cancel()
		n, err := p.PreloadOpeningSales(ctx, ahead)
		switch {
		case err != nil && s.ctx.Err() == nil:
			log.Warn("loading the seat maps of opening sales failed", "loaded", n, "err", err)
		case n > 0:
			log.Info("seat maps loaded ahead of their sale", "loaded", n)
		}
	}))
	s.cron.Schedule(cron.Every(interval), job)
}
