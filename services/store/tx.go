package store

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/jmoiron/sqlx"
)

// TxAttempts is how often InTx runs a transaction that InnoDB keeps choosing as a
// deadlock victim before giving up: eight, with the pauses of RetryPause (up to about a
// quarter of a second in all), so a storm of writers on one show's rows (staff edits
// beside a flash sale) ends in a result, not in UNAVAILABLE.
const TxAttempts = 8

// InTx runs fn in one transaction and commits it. When InnoDB picks the transaction as
// a deadlock victim (1213) or a lock wait times out (1205), everything was rolled back,
// so the whole of fn runs again (at most TxAttempts times); fn must therefore set its
// results afresh on each run. Any other error rolls back and is returned as it is.
func InTx(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) error {
	var err error
	for attempt := 0; attempt < TxAttempts; attempt++ {
		if err = runTx(ctx, db, fn); !IsRetryable(err) {
			return err
		}
		RetryPause(attempt)
	}
	return err
}

// RetryPause waits before attempt+1 of a transaction InnoDB chose as a deadlock victim:
// a random pause of up to 2 ms << attempt (2, 4, 8 … ms), so two transactions that
// deadlocked do not meet again in lockstep.
func RetryPause(attempt int) {
	time.Sleep(time.Duration(rand.Int64N(int64(2*time.Millisecond) << min(attempt, 6))))
}

func runTx(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
