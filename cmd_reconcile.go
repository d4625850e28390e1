package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"text/tabwriter"
	"time"

	"seatflow/services/reconcile"
	"seatflow/web"
)

// cliReconcileWait is how long `seatflow reconcile` waits for a run in progress.
const cliReconcileWait = 60 * time.Second

// cliFindingLines is how many findings the summary lists one per line.
const cliFindingLines = 20

// reconcileFlags parses `reconcile [--dry-run] [--show ID]` into run options; -h prints
// the flags and returns flag.ErrHelp.
func reconcileFlags(args []string) (reconcile.ReconcileOptions, error) {
	opts := reconcile.ReconcileOptions{Trigger: reconcile.TriggerCLI, Wait: cliReconcileWait}
	fs := flag.NewFlagSet("seatflow reconcile", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: seatflow reconcile [--dry-run] [--show ID]")
		fs.PrintDefaults()
	}
	fs.BoolVar(&opts.DryRun, "dry-run", false, "report the drift, repair nothing")
	fs.Int64Var(&opts.ShowID, "show", 0, "reconcile only the show with this `ID` (default every show)")
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, fmt.Errorf("reconcile: unexpected argument %q", fs.Arg(0))
	}
	if opts.ShowID < 0 {
		return opts, fmt.Errorf("reconcile: --show must be a positive show id")
	}
	return opts, nil
}

// reconcile migrates, runs one reconciliation with a progress line on stderr and prints
// the summary on stdout. It returns an error when another run held the lease for
// cliReconcileWait, or when the run failed or could not be stored.
func runReconcile(ctx context.Context, a *web.App, opts reconcile.ReconcileOptions) error {
	if _, err := a.Migrate(ctx); err != nil {
		return err
	}
	open := false // the progress line waits for its end of line
	tty := isTerminal(os.Stderr)
	opts.Progress = func(done, total int) {
		if !tty { // a log file gets one line per tenth of the shows, not a carriage-return stream
			if done == total || done%max(1, total/10) == 0 {
				fmt.Fprintf(os.Stderr, "reconciling: %d/%d shows\n", done, total)
			}
			return
		}
		fmt.Fprintf(os.Stderr, "\rreconciling: %d/%d shows", done, total)
		if open = done < total; !open {
			fmt.Fprintln(os.Stderr)
		}
	}
	run, err := a.Reconciler.Run(ctx, opts)
	if open {
		fmt.Fprintln(os.Stderr)
	}
	if run == nil {
		return err
	}
	printRun(os.Stdout, run)
	if err != nil {
		return fmt.Errorf("reconciliation run %d %s: %w", run.ID, run.Status, err)
	}
	return nil
}

// printRun writes a run's summary: its facts, a kind | found | fixed table and the first
// cliFindingLines findings.
func printRun(w io.Writer, run *reconcile.ReconcileRun) {
	dry := "no"
	if run.DryRun {
		dry = "yes"
	}
	fmt.Fprintf(w, "run %d  trigger %s  dry run %s  duration %s\n", run.ID, run.Trigger, dry, run.Duration().Round(time.Millisecond))
	fmt.Fprintf(w, "shows checked %d  status %s\n", run.ShowsChecked, run.Status)
	if run.Error != "" {
		fmt.Fprintf(w, "error: %s\n", run.Error)
	}
	if len(run.Findings) == 0 {
		fmt.Fprintln(w, "no findings")
		return
	}
	found, fixed := run.CountsByKind(), map[string]int{}
	kinds := make([]string, 0, len(found))
	for k := range found {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, f := range run.Findings {
		if f.Fixed {
			fixed[f.Kind]++
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nKIND\tFOUND\tFIXED")
	for _, k := range kinds {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", k, found[k], fixed[k])
	}
	tw.Flush()
	fmt.Fprintf(w, "\nfindings (%d of %d):\n", min(len(run.Findings), cliFindingLines), len(run.Findings))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range run.Findings[:min(len(run.Findings), cliFindingLines)] {
		fmt.Fprintf(tw, "  %s\tshow %s\tseat %s\torder %s\t%s\t%s\t%s\n", f.Kind, orDash(f.ShowID), orDash(f.SeatID),
			orNone(f.OrderNo), f.Action, fixedWord(f.Fixed), f.Detail)
	}
	tw.Flush()
}

// orDash is an id, or "-" for 0 (none).
func orDash(id int64) string {
	if id == 0 {
		return "-"
	}
	return fmt.Sprint(id)
}

// orNone is s, or "-" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// fixedWord says whether a finding was repaired.
func fixedWord(fixed bool) string {
	if fixed {
		return "fixed"
	}
	return "not fixed"
}

// isTerminal reports whether f is a character device (a terminal), where a progress
// line can be rewritten in place.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
