package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"
)

// SalesRoller rolls up the complete past local days of every cinema's sales
// (reports.Reports).
type SalesRoller interface {
	RollUpRecent(ctx context.Context, days int) error
}

// RollupDays is how far back the scheduled roll-up looks: a year's report and a little
// more are read from the rollup from the first request on.
const RollupDays = 400

// AddSalesRollup schedules the sales roll-up every interval (an hour in production): the
// days that ended since the last run, and any not rolled up yet within RollupDays, are
// added to the rollup. Rolling up is idempotent and two instances count a day once
// (DESIGN.md "Sales rollup"), so every process may run it: no lease. Like the other jobs
// it is wrapped in SkipIfStillRunning (outermost) and Recover. Call before Start.
func (s *Scheduler) AddSalesRollup(r SalesRoller, interval time.Duration, log *slog.Logger) {
	cl := cronLogger{log}
	job := cron.NewChain(cron.SkipIfStillRunning(cl), cron.Recover(cl)).Then(cron.FuncJob(func() {
		ctx, cancel := context.WithTimeout(s.ctx, interval)
		defer cancel()
		if err := r.RollUpRecent(ctx, RollupDays); err != nil && s.ctx.Err() == nil {
			log.Warn("rolling up past sales failed; reports read those days live", "err", err)
		}
	}))
	s.cron.Schedule(cron.Every(interval), job)
}
