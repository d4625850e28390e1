package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"seatflow/services/store"
	"seatflow/web"
)

// rebuildOptions is `seatflow reports-rebuild`'s range: the local dates From..To (UTC
// midnights standing for dates, both included) and one cinema (0: every cinema).
type rebuildOptions struct {
	From, To time.Time
	CinemaID int64
}

// rebuildFlags parses `reports-rebuild --from YYYY-MM-DD --to YYYY-MM-DD [--cinema ID]`;
// -h prints the flags and returns flag.ErrHelp. Errors: a missing or malformed date, from
// after to, a negative cinema id.
func rebuildFlags(args []string) (rebuildOptions, error) {
	var o rebuildOptions
	var from, to string
	fs := flag.NewFlagSet("seatflow reports-rebuild", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: seatflow reports-rebuild --from YYYY-MM-DD --to YYYY-MM-DD [--cinema ID]")
		fs.PrintDefaults()
	}
	fs.StringVar(&from, "from", "", "first local `date` to drop from the sales rollup (YYYY-MM-DD)")
	fs.StringVar(&to, "to", "", "last local `date` to drop, included (YYYY-MM-DD)")
	fs.Int64Var(&o.CinemaID, "cinema", 0, "drop only this cinema's days (`ID`; default every cinema)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("reports-rebuild: unexpected argument %q", fs.Arg(0))
	}
	var err error
	if o.From, err = time.Parse(time.DateOnly, from); err != nil {
		return o, fmt.Errorf("reports-rebuild: --from must be a date YYYY-MM-DD (got %q)", from)
	}
	if o.To, err = time.Parse(time.DateOnly, to); err != nil {
		return o, fmt.Errorf("reports-rebuild: --to must be a date YYYY-MM-DD (got %q)", to)
	}
	if o.To.Before(o.From) {
		return o, fmt.Errorf("reports-rebuild: --from (%s) is after --to (%s)", from, to)
	}
	if o.CinemaID < 0 {
		return o, fmt.Errorf("reports-rebuild: --cinema must be a positive cinema id")
	}
	return o, nil
}

// runRebuild drops the sales rollup of o's days (DESIGN.md "Sales rollup"): the next
// report covering them rolls them up afresh from orders and refunds. It prints how many
// (cinema, day) pairs were dropped.
func runRebuild(ctx context.Context, a *web.App, o rebuildOptions) error {
	var ids []int64
	if o.CinemaID != 0 {
		ids = []int64{o.CinemaID}
	}
	n, err := store.DropSalesRollup(ctx, a.DB, ids, o.From, o.To)
	if err != nil {
		return err
	}
	fmt.Printf("sales rollup dropped: %d cinema days from %s to %s; the next report covering them rolls them up again\n",
		n, o.From.Format(time.DateOnly), o.To.Format(time.DateOnly))
	return nil
}
