package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"

	"seatflow/migrations"
	"seatflow/services"
)

// Pool sizes the MySQL connection pool of one process. The defaults let three
// processes and a load generator share MariaDB's default max_connections of 151.
type Pool struct {
	MaxOpen int // connections open at most (default 40)
	MaxIdle int // connections kept idle (default MaxOpen)
}

// OpenDB connects to MySQL/MariaDB with the DSN (go-sql-driver format) and the pool
// sizes (zero values: the defaults). It forces parseTime, UTC and the session time zone
// '+00:00', so every stored time is UTC (DESIGN.md invariant 7), and interpolates
// parameters on the client (utf8mb4 is a safe charset for it), so a statement costs one
// round trip instead of prepare, execute and close.
func OpenDB(dsn string, pool ...Pool) (*sqlx.DB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysql dsn: %w", err)
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	cfg.Params["charset"] = "utf8mb4"
	cfg.InterpolateParams = true
	cfg.MultiStatements = false
	db, err := sqlx.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, err
	}
	p := Pool{MaxOpen: 40}
	if len(pool) > 0 && pool[0].MaxOpen > 0 {
		p = pool[0]
	}
	if p.MaxIdle <= 0 || p.MaxIdle > p.MaxOpen {
		p.MaxIdle = p.MaxOpen
	}
	db.SetMaxOpenConns(p.MaxOpen)
	db.SetMaxIdleConns(p.MaxIdle)
	db.SetConnMaxLifetime(30 * time.Minute)
	return db, nil
}

// RedactDSN is dsn with its password replaced by "xxxxx", for logs and messages; a DSN
// that does not parse is shown as "(unreadable DSN)".
func RedactDSN(dsn string) string {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "(unreadable DSN)"
	}
	if cfg.Passwd != "" {
		cfg.Passwd = "xxxxx"
	}
	return cfg.FormatDSN()
}

// RedactSecret is text with the password of dsn, and dsn itself, hidden: for error
// texts from drivers that may quote what they were given.
func RedactSecret(text, dsn string) string {
	if dsn != "" {
		text = strings.ReplaceAll(text, dsn, RedactDSN(dsn))
	}
	if cfg, err := mysql.ParseDSN(dsn); err == nil && len(cfg.Passwd) >= 4 {
		text = strings.ReplaceAll(text, cfg.Passwd, "xxxxx")
	}
	return text
}

// EnsureDatabase creates the database named in dsn when it does not exist yet, so a
// fresh machine needs no manual step before `seatflow migrate`.
func EnsureDatabase(ctx context.Context, dsn string) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("mysql dsn: %w", err)
	}
	name := cfg.DBName
	if name == "" {
		return errors.New("mysql dsn names no database")
	}
	cfg.DBName = ""
	db, err := sqlx.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
	return err
}

// Migrate applies every pending goose migration embedded in the binary and returns how
// many it applied. first is the cinema an install without one gets (its name, IANA time
// zone and ISO 4217 currency: the install's settings), which migration 31 makes and puts
// every existing hall in.
func Migrate(ctx context.Context, db *sqlx.DB, first services.Cinema) (int, error) {
	return MigrateUpTo(ctx, db, first, math.MaxInt64)
}

// MigrateUpTo applies the pending migrations up to version (inclusive) and returns how
// many it applied: for upgrading step by step and for tests of an upgrade from an older
// schema. first is as for Migrate.
func MigrateUpTo(ctx context.Context, db *sqlx.DB, first services.Cinema, version int64) (int, error) {
	p, err := goose.NewProvider(goose.DialectMySQL, db.DB, migrations.FS,
		goose.WithGoMigrations(firstCinemaMigration(first)))
	if err != nil {
		return 0, err
	}
	res, err := p.UpTo(ctx, version)
	return len(res), err
}

// IsRetryable reports whether a transaction failed only because InnoDB picked it as a
// deadlock victim (1213) or timed out waiting for a lock (1205): running it again is safe.
func IsRetryable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

// DBTimeout bounds every SQL call made on behalf of a request.
const DBTimeout = 5 * time.Second

// RedisTimeout bounds every Redis call made on behalf of a request.
const RedisTimeout = 3 * time.Second
