package catalog

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
)

// CatalogWriter is the catalog's write side (halls, movies, shows, prices, sale control), used by the
// admin API, the console and tests. Every write is audited in its own transaction
// (invariant 11) and a changed show is dropped from the order path's cache.
type CatalogWriter struct {
	db           *sqlx.DB
	catalog      *Catalog
	maps         SeatMaps
	audit        *audit.Audit
	clock        services.Clock
	zone         *time.Location
	currency     string
	defaultLimit int
}

// SeatMaps is what the catalog's writes need of the seat maps in Redis; the seat
// package's Shows provides it. A writer built with nil SeatMaps (the demo seed) must not
// update halls or read seat counts.
type SeatMaps interface {
	// Load builds a show's seat map from MySQL unless it is loaded. Errors: UNAVAILABLE.
	Load(ctx context.Context, showID int64) error
	// ZoneFree returns, per loaded show id, its free seats per zone code.
	ZoneFree(ctx context.Context, showIDs []int64) (map[int64]map[string]int, error)
	// FillSeatsLeft sets the seats-left figures of shows from their seat maps.
	FillSeatsLeft(ctx context.Context, shows []*services.Show) error
	// RefreshHall brings the loaded seat maps of the hall's future shows in line with
	// its layout in MySQL, or leaves that to the next reconciliation run (logged).
	RefreshHall(ctx context.Context, hallID int64)
}

// WriterConfig holds the settings of the catalog's write side: Currency is the 3-letter
// code of new shows, DefaultLimit their purchase limit when none is given, Zone the
// cinema's time zone (the wall clock staff type show times in).
type WriterConfig struct {
	Currency     string
	DefaultLimit int
	Zone         *time.Location
}

// NewCatalogWriter returns the catalog's write side over db: it drops changed shows and
// halls from catalog's cache, keeps maps in line, audits into audit and reads time from
// clock.
func NewCatalogWriter(db *sqlx.DB, catalog *Catalog, maps SeatMaps, audit *audit.Audit, clock services.Clock, cfg WriterConfig) *CatalogWriter {
	if cfg.Zone == nil {
		cfg.Zone = time.UTC
	}
	return &CatalogWriter{db: db, catalog: catalog, maps: maps, audit: audit, clock: clock, zone: cfg.Zone,
		currency: cfg.Currency, defaultLimit: cfg.DefaultLimit}
}
